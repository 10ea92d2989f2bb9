/*
 * reconnect.c -- automatic client reconnection, as IBM's client does it
 * without an event handler (MQCB is not supported):
 *
 *   - a connection is reconnectable by MQCNO_RECONNECT or
 *     MQCNO_RECONNECT_Q_MGR, or, with MQCNO_RECONNECT_AS_DEF, by DefRecon
 *     in mqclient.ini's CHANNELS stanza or else the MQCD's DefReconnect;
 *     DefRecon=DISABLED and MQCNO_RECONNECT_DISABLED turn it off. The
 *     default is not to reconnect: a lost connection stays 2009.
 *   - the call that finds the connection lost (the server closed it while
 *     idle, or it broke during the call) connects again with the channels,
 *     user and options of MQCONNX, retrying after IBM's default ReconDelay
 *     (1 s, 2 s, then every 4 s, each plus a random part) until
 *     MQReconnectTimeout (mqclient.ini CHANNELS stanza, default 1800 s);
 *     then MQRC_RECONNECT_TIMED_OUT (2556). A refusal that retrying cannot
 *     cure (2035, 2540, ...) is MQRC_RECONNECT_FAILED (2548); another
 *     queue manager (another QMID) answering an MQCNO_RECONNECT_Q_MGR
 *     connection is MQRC_RECONNECT_QMID_MISMATCH (2546).
 *   - the object handles open at the break are reopened with the same
 *     numbers (REOPEN, PROTOCOL.md); browse cursors start again.
 *   - a unit of work in flight is gone with the old connection: its
 *     MQPUT/MQPUT1/MQGET under syncpoint fail MQRC_BACKED_OUT (2003) and so
 *     does the MQCMIT that ends it (MQBACK succeeds).
 *   - a call the break interrupted: MQGET is issued again (a wait starts
 *     over), as are MQOPEN, MQCLOSE, MQINQ and MQBACK; MQPUT, MQPUT1 and
 *     MQCMIT, whose outcome is unknown, fail MQRC_CALL_INTERRUPTED (2549).
 *
 * The mqclient.ini read is MQCLNTCF's file, else ./mqclient.ini, else
 * $HOME/.mqclient.ini (IBM's order, without /var/mqm).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "internal.h"

#define DEFAULT_RECONNECT_TIMEOUT_S 1800

typedef struct mqs_open_rec {
  struct mqs_open_rec *next;
  MQHOBJ               hobj;
  MQLONG               type, options;
  char                 name[MQ_OBJECT_NAME_LENGTH + 1];
  char                 qmgr[MQ_Q_MGR_NAME_LENGTH + 1];
  char                 dynamic[MQ_Q_NAME_LENGTH + 1];
} mqs_open_rec;

struct mqs_reconnect {
  mqs_connect_params params;   /* MQCONNX's, to connect again */
  int                same_qmgr; /* MQCNO_RECONNECT_Q_MGR */
  char               qmid[MQ_Q_MGR_IDENTIFIER_LENGTH + 1]; /* the queue manager first connected to */
  long               timeout_ms;
  mqs_open_rec      *objects;
};

/* ---- mqclient.ini ------------------------------------------------------ */

typedef struct {
  MQLONG def_recon;   /* MQRCN_*, or -1 when not set */
  long   timeout_s;   /* MQReconnectTimeout, or -1 */
} ini_settings;

static FILE *open_ini(void)
{
  const char *env = getenv("MQCLNTCF");
  if (env && *env)
    return fopen(env, "r");
  FILE *f = fopen("mqclient.ini", "r");
  if (f)
    return f;
  const char *home = getenv("HOME");
  if (!home || !*home)
    return NULL;
  char path[4096];
  snprintf(path, sizeof path, "%s/.mqclient.ini", home);
  return fopen(path, "r");
}

static char *trim(char *s)
{
  while (isspace((unsigned char)*s))
    s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = 0;
  return s;
}

static ini_settings read_ini(void)
{
  ini_settings st = {-1, -1};
  FILE *f = open_ini();
  if (!f)
    return st;
  char line[1024];
  int in_channels = 0;
  while (fgets(line, sizeof line, f)) {
    char *s = trim(line);
    if (!*s || *s == '#' || *s == ';')
      continue;
    size_t n = strlen(s);
    if (s[n - 1] == ':') {
      s[n - 1] = 0;
      in_channels = strcasecmp(trim(s), "CHANNELS") == 0;
      continue;
    }
    char *eq = strchr(s, '=');
    if (!in_channels || !eq)
      continue;
    *eq = 0;
    char *key = trim(s), *value = trim(eq + 1);
    if (strcasecmp(key, "DefRecon") == 0) {
      if (strcasecmp(value, "YES") == 0)
        st.def_recon = MQRCN_YES;
      else if (strcasecmp(value, "QMGR") == 0)
        st.def_recon = MQRCN_Q_MGR;
      else if (strcasecmp(value, "DISABLED") == 0)
        st.def_recon = MQRCN_DISABLED;
      else if (strcasecmp(value, "NO") == 0)
        st.def_recon = MQRCN_NO;
    } else if (strcasecmp(key, "MQReconnectTimeout") == 0) {
      char *end;
      long v = strtol(value, &end, 10);
      if (end != value && !*end && v >= 0)
        st.timeout_s = v;
    }
  }
  fclose(f);
  return st;
}

/* ---- setting up ----------------------------------------------------------- */

/* The reconnect mode, MQRCN_*: MQCNO's options decide unless they are
 * AS_DEF, then DefRecon, then the channel's DefReconnect; DefRecon=DISABLED
 * overrides them all, as IBM documents. */
static MQLONG reconnect_mode(MQLONG cno_options, MQLONG channel_default, MQLONG ini_default)
{
  if (ini_default == MQRCN_DISABLED || (cno_options & MQCNO_RECONNECT_DISABLED))
    return MQRCN_DISABLED;
  if (cno_options & MQCNO_RECONNECT_Q_MGR)
    return MQRCN_Q_MGR;
  if (cno_options & MQCNO_RECONNECT)
    return MQRCN_YES;
  if (ini_default >= 0)
    return ini_default;
  return channel_default;
}

int mqs_reconnect_setup(mqs_conn *c, mqs_connect_params *p, const mqs_channel *used, const char *qmid)
{
  ini_settings ini = read_ini();
  MQLONG mode = reconnect_mode(p->cno_options, used ? used->def_reconnect : MQRCN_NO, ini.def_recon);
  if (mode != MQRCN_YES && mode != MQRCN_Q_MGR)
    return 0;
  mqs_reconnect *r = calloc(1, sizeof *r);
  if (!r)
    return -1;
  r->params = *p;                  /* the connection owns them now */
  memset(p, 0, sizeof *p);
  r->same_qmgr = mode == MQRCN_Q_MGR;
  snprintf(r->qmid, sizeof r->qmid, "%s", qmid);
  r->timeout_ms = 1000L * (ini.timeout_s >= 0 ? ini.timeout_s : DEFAULT_RECONNECT_TIMEOUT_S);
  c->recon = r;
  return 0;
}

void mqs_reconnect_free(mqs_reconnect *r)
{
  if (!r)
    return;
  /* The password too: clear it before it goes back to malloc. */
  if (r->params.password)
    memset(r->params.password, 0, strlen(r->params.password));
  mqs_connect_params_free(&r->params);
  for (mqs_open_rec *o = r->objects, *next; o; o = next) {
    next = o->next;
    free(o);
  }
  free(r);
}

/* ---- the handles to reinstate ---------------------------------------------- */

void mqs_reconnect_opened(mqs_conn *c, MQHOBJ hobj, const MQOD *od, MQLONG options)
{
  if (!c->recon)
    return;
  mqs_open_rec *o = calloc(1, sizeof *o);
  if (!o)
    return;   /* then the handle is not reopened: its next call fails 2019 */
  o->hobj = hobj;
  o->type = od->ObjectType;
  o->options = options;
  mqs_fixed_to_c(o->name, sizeof o->name, od->ObjectName, MQ_OBJECT_NAME_LENGTH);
  mqs_fixed_to_c(o->qmgr, sizeof o->qmgr, od->ObjectQMgrName, MQ_Q_MGR_NAME_LENGTH);
  mqs_fixed_to_c(o->dynamic, sizeof o->dynamic, od->DynamicQName, MQ_Q_NAME_LENGTH);
  o->next = c->recon->objects;
  c->recon->objects = o;
}

void mqs_reconnect_closed(mqs_conn *c, MQHOBJ hobj)
{
  if (!c->recon)
    return;
  for (mqs_open_rec **pp = &c->recon->objects; *pp; pp = &(*pp)->next)
    if ((*pp)->hobj == hobj) {
      mqs_open_rec *o = *pp;
      *pp = o->next;
      free(o);
      return;
    }
}

/* REOPEN every recorded handle under its number. */
static MQLONG reopen_all(mqs_conn *c)
{
  for (mqs_open_rec *o = c->recon->objects; o; o = o->next) {
    mqs_buf b;
    mqs_buf_init(&b, MQS_OP_REOPEN);
    mqs_put_i32(&b, o->hobj);
    mqs_put_i32(&b, o->type);
    mqs_put_cstr(&b, o->name);
    mqs_put_cstr(&b, o->qmgr);
    mqs_put_cstr(&b, o->dynamic);
    mqs_put_i32(&b, o->options);
    unsigned char *reply = NULL;
    mqs_rd r;
    MQLONG cc = MQCC_FAILED, rc = MQRC_NONE;
    int failed = mqs_exchange(c->fd, c->ssl, &b, c->reply_timeout_ms, &reply, &r, &cc, &rc);
    mqs_buf_free(&b);
    free(reply);
    if (failed || cc == MQCC_FAILED)
      return MQRC_RECONNECT_FAILED;
  }
  return MQRC_NONE;
}

/* ---- reconnecting ---------------------------------------------------------- */

/* Whether the server has closed an idle connection (or, in plain TCP, sent
 * what it never sends unasked): either way it is not usable. Over TLS the
 * socket may hold TLS's own records (a TLS 1.3 session ticket), so only a
 * hang-up counts there. */
static int peer_gone(const mqs_conn *c)
{
  struct pollfd pfd = {.fd = c->fd, .events = POLLIN | POLLRDHUP};
  if (poll(&pfd, 1, 0) == 0)
    return 0;
  return !c->ssl || (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

static long now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(long ms)
{
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

/* IBM's default ReconDelay: (1000,200),(2000,200),(4000,1000), the last
 * repeated: a delay in ms plus a random part up to the second number. */
static long recon_delay_ms(int attempt)
{
  static const long base[] = {1000, 2000, 4000}, spread[] = {200, 200, 1000};
  int i = attempt < 2 ? attempt : 2;
  return base[i] + (long)(random() % (spread[i] + 1));
}

/* Failures that another attempt may cure: nothing listening yet, a
 * listener without the queue manager yet, a connection lost on the way. */
static int retryable(MQLONG rc)
{
  return rc == MQRC_HOST_NOT_AVAILABLE || rc == MQRC_Q_MGR_NOT_AVAILABLE ||
         rc == MQRC_CONNECTION_BROKEN;
}

MQLONG mqs_reconnect_ensure(mqs_conn *c)
{
  if (!c->broken && !peer_gone(c))
    return MQRC_NONE;
  mqs_conn_break(c);
  mqs_reconnect *r = c->recon;
  long deadline = now_ms() + r->timeout_ms;
  for (int attempt = 0;; attempt++) {
    char qmid[MQ_Q_MGR_IDENTIFIER_LENGTH + 1] = "";
    MQLONG rc = mqs_conn_redial(c, &r->params, qmid, sizeof qmid);
    if (rc == MQRC_NONE) {
      if (r->same_qmgr && strcmp(qmid, r->qmid) != 0) {
        mqs_conn_break(c);
        return MQRC_RECONNECT_QMID_MISMATCH;
      }
      if (reopen_all(c) != MQRC_NONE) {
        mqs_conn_break(c);
        return MQRC_RECONNECT_FAILED;
      }
      c->broken = 0;
      if (c->in_uow) {
        c->in_uow = 0;
        c->uow_lost = 1;
      }
      return MQRC_NONE;
    }
    if (!retryable(rc))
      return MQRC_RECONNECT_FAILED;
    long delay = recon_delay_ms(attempt);
    if (now_ms() + delay > deadline)
      return MQRC_RECONNECT_TIMED_OUT;
    sleep_ms(delay);
  }
}
