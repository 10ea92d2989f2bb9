/*
 * channel.c -- what MQCONNX connects to and with what: the client channel
 * (MQCD, CCDT URL, MQSERVER, MQCCDTURL, in IBM's order of precedence), the
 * user and password (MQCSP), and the TLS configuration (MQSCO).
 *
 * A channel with a CipherSpec is spoken over TLS (tls.c): its key
 * repository is read before anything is connected, as IBM's client does.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define CSP_MAX_USER_LENGTH     1024  /* MQ_CLIENT_USER_ID_LENGTH */
#define CSP_MAX_PASSWORD_LENGTH 256   /* MQ_CSP_PASSWORD_LENGTH */

void mqs_channels_free(mqs_channel *c, int n)
{
  for (int i = 0; i < n; i++)
    free(c[i].endpoints);
  free(c);
}

void mqs_connect_params_free(mqs_connect_params *p)
{
  mqs_channels_free(p->channels, p->nchannels);
  mqs_tls_free(p->tls);
  if (p->password)
    memset(p->password, 0, strlen(p->password));
  free(p->user);
  free(p->password);
  memset(p, 0, sizeof *p);
}

/* ---- ConnectionName ------------------------------------------------- */

int mqs_parse_conname(const char *s, mqs_endpoint **out, int *n)
{
  *out = NULL;
  *n = 0;
  int cap = 1;
  for (const char *q = s; *q; q++)
    cap += *q == ',';
  mqs_endpoint *list = calloc((size_t)cap, sizeof *list);
  if (!list)
    return -1;
  int count = 0;
  const char *p = s;
  for (;;) {
    while (*p == ' ')
      p++;
    const char *host = p;
    while (*p && *p != '(' && *p != ',' && *p != ' ')
      p++;
    size_t hostlen = (size_t)(p - host);
    long port = MQS_DEFAULT_PORT;
    while (*p == ' ')
      p++;
    if (*p == '(') {
      int digits = 0;
      port = 0;
      for (p++; *p == ' '; p++)
        ;
      for (; isdigit((unsigned char)*p) && digits < 6; p++, digits++)
        port = port * 10 + (*p - '0');
      while (*p == ' ')
        p++;
      if (*p != ')' || !digits)
        goto bad;
      p++;
      while (*p == ' ')
        p++;
    }
    /* An IPv6 literal may come in brackets: [::1](1414). */
    if (hostlen >= 2 && host[0] == '[' && host[hostlen - 1] == ']') {
      host++;
      hostlen -= 2;
    }
    if (hostlen == 0 || hostlen > MQ_CONN_NAME_LENGTH || port < 1 || port > 65535)
      goto bad;
    memcpy(list[count].host, host, hostlen);
    list[count].host[hostlen] = '\0';
    list[count].port = (int)port;
    count++;
    if (*p == '\0')
      break;
    if (*p != ',')
      goto bad;
    p++;
  }
  *out = list;
  *n = count;
  return 0;
bad:
  free(list);
  return -1;
}

/* ---- the channel ---------------------------------------------------- */

static MQLONG channel_from_mqcd(const MQCD *cd, mqs_channel **out, int *n)
{
  if (cd->Version < MQCD_VERSION_1 || cd->Version > MQCD_CURRENT_VERSION)
    return MQRC_CD_ERROR;
  mqs_channel *ch = calloc(1, sizeof *ch);
  if (!ch)
    return MQRC_STORAGE_NOT_AVAILABLE;
  *out = ch;
  *n = 1;
  mqs_fixed_to_c(ch->name, sizeof ch->name, cd->ChannelName, MQ_CHANNEL_NAME_LENGTH);
  char conname[MQ_CONN_NAME_LENGTH + 1];
  if (cd->Version >= MQCD_VERSION_2)
    mqs_fixed_to_c(conname, sizeof conname, cd->ConnectionName, MQ_CONN_NAME_LENGTH);
  else
    mqs_fixed_to_c(conname, sizeof conname, cd->ShortConnectionName, MQ_SHORT_CONN_NAME_LENGTH);
  if (mqs_parse_conname(conname, &ch->endpoints, &ch->nendpoints) != 0)
    return MQRC_HOST_NOT_AVAILABLE;
  ch->max_msg_length = cd->MaxMsgLength > 0 ? cd->MaxMsgLength : 0;
  ch->hbint = cd->Version >= MQCD_VERSION_4 ? cd->HeartbeatInterval : MQS_SERVER_HBINT;
  ch->keepalive = cd->Version >= MQCD_VERSION_7 ? cd->KeepAliveInterval : -1;
  if (cd->Version >= MQCD_VERSION_7) {
    mqs_fixed_to_c(ch->cipher, sizeof ch->cipher, cd->SSLCipherSpec, MQ_SSL_CIPHER_SPEC_LENGTH);
    if (cd->SSLPeerNameLength < 0 || cd->SSLPeerNameLength > MQS_MAX_PEER_NAME)
      return MQRC_SSL_PEER_NAME_ERROR;
    if (cd->SSLPeerNamePtr && cd->SSLPeerNameLength > 0)
      mqs_fixed_to_c(ch->peer_name, sizeof ch->peer_name, (const char *)cd->SSLPeerNamePtr, (size_t)cd->SSLPeerNameLength);
  }
  if (cd->Version >= MQCD_VERSION_11)
    mqs_fixed_to_c(ch->cert_label, sizeof ch->cert_label, cd->CertificateLabel, MQ_CERT_LABEL_LENGTH);
  ch->def_reconnect = cd->Version >= MQCD_VERSION_10 ? cd->DefReconnect : MQRCN_NO;
  return MQRC_NONE;
}

/* MQSERVER=CHANNEL/TCP/host(port)[,host(port)...]; the ConnectionName may
 * be quoted. A bad variable is MQRC_Q_MGR_NAME_ERROR, as IBM documents. */
static MQLONG channel_from_mqserver(const char *v, mqs_channel **out, int *n)
{
  const char *s1 = strchr(v, '/');
  const char *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
  if (!s1 || !s2 || s1 == v || (size_t)(s1 - v) > MQ_CHANNEL_NAME_LENGTH ||
      (size_t)(s2 - s1 - 1) != 3 || strncasecmp(s1 + 1, "TCP", 3) != 0)
    return MQRC_Q_MGR_NAME_ERROR;
  mqs_channel *ch = calloc(1, sizeof *ch);
  if (!ch)
    return MQRC_STORAGE_NOT_AVAILABLE;
  *out = ch;
  *n = 1;
  memcpy(ch->name, v, (size_t)(s1 - v));
  char conname[MQ_CONN_NAME_LENGTH + 1];
  const char *c = s2 + 1;
  size_t len = strlen(c);
  if (len >= 2 && c[0] == '\'' && c[len - 1] == '\'') {
    c++;
    len -= 2;
  }
  if (len > MQ_CONN_NAME_LENGTH)
    return MQRC_HOST_NOT_AVAILABLE;
  memcpy(conname, c, len);
  conname[len] = '\0';
  if (mqs_parse_conname(conname, &ch->endpoints, &ch->nendpoints) != 0)
    return MQRC_HOST_NOT_AVAILABLE;
  ch->hbint = MQS_SERVER_HBINT;   /* a channel from MQSERVER has the default HBINT */
  ch->keepalive = -1;
  return MQRC_NONE;
}

static MQLONG channel_from_ccdt_url(const MQCNO *cno, const char *qmgr, mqs_channel **out, int *n)
{
  if (cno->CCDTUrlPtr && cno->CCDTUrlOffset)
    return MQRC_CCDT_URL_ERROR;
  const char *url = mqs_ptr_or_offset(cno, cno->CCDTUrlPtr, cno->CCDTUrlOffset);
  if (cno->CCDTUrlLength < 0 || cno->CCDTUrlLength > 4096)
    return MQRC_CCDT_URL_ERROR;
  char *copy = strndup(url, (size_t)cno->CCDTUrlLength);
  if (!copy)
    return MQRC_STORAGE_NOT_AVAILABLE;
  MQLONG rc = mqs_ccdt_channels(copy, qmgr, out, n);
  free(copy);
  return rc;
}

static int cno_has_ccdt_url(const MQCNO *cno)
{
  return cno->Version >= MQCNO_VERSION_6 && cno->CCDTUrlLength > 0 &&
         (cno->CCDTUrlPtr || cno->CCDTUrlOffset > 0);
}

/* ---- MQCSP ---------------------------------------------------------- */

static MQLONG csp_field(const MQCSP *csp, MQPTR ptr, MQLONG off, MQLONG len, MQLONG max, char **out)
{
  if (len == 0)
    return MQRC_NONE;
  if ((ptr && off) || len < 0 || len > max)
    return MQRC_CSP_ERROR;
  const char *p = mqs_ptr_or_offset(csp, ptr, off);
  if (!p)
    return MQRC_CSP_ERROR;
  *out = strndup(p, (size_t)len);
  return *out ? MQRC_NONE : MQRC_STORAGE_NOT_AVAILABLE;
}

static MQLONG read_csp(const MQCSP *csp, mqs_connect_params *p)
{
  if (!mqs_strucid_ok(csp, MQCSP_STRUC_ID) || csp->Version < MQCSP_VERSION_1 ||
      csp->Version > MQCSP_CURRENT_VERSION)
    return MQRC_CSP_ERROR;
  if (csp->AuthenticationType == MQCSP_AUTH_NONE)
    return MQRC_NONE;
  if (csp->AuthenticationType != MQCSP_AUTH_USER_ID_AND_PWD)
    return MQRC_CSP_ERROR;        /* token authentication is not supported */
  MQLONG rc = csp_field(csp, csp->CSPUserIdPtr, csp->CSPUserIdOffset, csp->CSPUserIdLength,
                        CSP_MAX_USER_LENGTH, &p->user);
  if (!rc)
    rc = csp_field(csp, csp->CSPPasswordPtr, csp->CSPPasswordOffset, csp->CSPPasswordLength,
                   CSP_MAX_PASSWORD_LENGTH, &p->password);
  return rc;
}

/* ---- MQCONNX's parameters -------------------------------------------- */

MQLONG mqs_connect_params_read(PMQCHAR qmgr, const MQCNO *cno, mqs_connect_params *p)
{
  memset(p, 0, sizeof *p);
  if (!cno || !mqs_strucid_ok(cno->StrucId, MQCNO_STRUC_ID) || cno->Version < MQCNO_VERSION_1 ||
      cno->Version > MQCNO_CURRENT_VERSION)
    return MQRC_CNO_ERROR;
  p->cno_options = cno->Options;

  char name[MQ_Q_MGR_NAME_LENGTH + 1];
  mqs_fixed_to_c(name, sizeof name, qmgr, MQ_Q_MGR_NAME_LENGTH);
  /* "*QM1" accepts whichever queue manager answers; the server is asked
   * for QM1 all the same, since one listener may serve several. */
  snprintf(p->qmgr, sizeof p->qmgr, "%s", name[0] == '*' ? name + 1 : name);

  if (cno->Version >= MQCNO_VERSION_7)
    mqs_fixed_to_c(p->appl, sizeof p->appl, cno->ApplName, sizeof cno->ApplName);
  if (!p->appl[0])
    snprintf(p->appl, sizeof p->appl, "%.28s", mqs_prog_name());

  MQLONG rc = MQRC_NONE;
  if (cno->Version >= MQCNO_VERSION_5) {
    const MQCSP *csp = mqs_ptr_or_offset(cno, cno->SecurityParmsPtr, cno->SecurityParmsOffset);
    if (csp && (rc = read_csp(csp, p)) != MQRC_NONE)
      return rc;
  }
  const MQSCO *sco = NULL;
  if (cno->Version >= MQCNO_VERSION_4) {
    sco = mqs_ptr_or_offset(cno, cno->SSLConfigPtr, cno->SSLConfigOffset);
    if (sco && (!mqs_strucid_ok(sco->StrucId, MQSCO_STRUC_ID) || sco->Version < MQSCO_VERSION_1 ||
                sco->Version > MQSCO_CURRENT_VERSION))
      return MQRC_SCO_ERROR;
  }

  const MQCD *cd = cno->Version >= MQCNO_VERSION_2
                       ? mqs_ptr_or_offset(cno, cno->ClientConnPtr, cno->ClientConnOffset)
                       : NULL;
  const char *mqserver = getenv("MQSERVER");
  const char *ccdt_env = getenv("MQCCDTURL");
  if (cd)
    rc = channel_from_mqcd(cd, &p->channels, &p->nchannels);
  else if (cno_has_ccdt_url(cno))
    rc = channel_from_ccdt_url(cno, name, &p->channels, &p->nchannels);
  else if (mqserver && *mqserver)
    rc = channel_from_mqserver(mqserver, &p->channels, &p->nchannels);
  else if (ccdt_env && *ccdt_env)
    rc = mqs_ccdt_channels(ccdt_env, name, &p->channels, &p->nchannels);
  else
    rc = MQRC_Q_MGR_NAME_ERROR;   /* no client channel definition anywhere */
  if (rc)
    return rc;

  /* A CipherSpec needs the key repository, read once for every channel. */
  for (int i = 0; i < p->nchannels; i++) {
    if (!p->channels[i].cipher[0])
      continue;
    if ((rc = mqs_tls_check_channel(&p->channels[i])) != MQRC_NONE)
      return rc;
    if (!p->tls && (rc = mqs_tls_load(sco, &p->tls)) != MQRC_NONE)
      return rc;
  }
  return MQRC_NONE;
}
