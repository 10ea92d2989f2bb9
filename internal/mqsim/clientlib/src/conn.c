/*
 * conn.c -- connections: MQCONN/MQCONNX/MQDISC, MQCMIT/MQBACK, the
 * connection table, and one request/reply exchange (mqs_call).
 *
 * A connection lives in the table from MQCONNX to MQDISC. A call finds it
 * under the table mutex, takes a reference, and then takes the
 * connection's own mutex for the whole exchange; MQDISC marks it closed and
 * the last reference frees it, so a thread that was waiting for the mutex
 * finds a stale handle (2018) rather than freed memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"

/* How long CONNECT may take, before any heartbeat interval is agreed. */
#define CONNECT_REPLY_TIMEOUT_MS 60000

static pthread_mutex_t g_table_mu = PTHREAD_MUTEX_INITIALIZER;
static mqs_conn *g_conns;
static MQHCONN g_next_hconn = 0x01000001;   /* never reused: stale handles fail 2018 */

static void conn_free(mqs_conn *c)
{
  mqs_tls_close(c->ssl);
  if (c->fd >= 0)
    close(c->fd);
  mqs_reconnect_free(c->recon);
  mqs_buf_free(&c->held);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

/* Drop a reference taken by mqs_conn_enter; the last one frees a
 * disconnected connection. */
static void release_ref(mqs_conn *c)
{
  pthread_mutex_lock(&g_table_mu);
  int last = --c->refs == 0 && c->closed;
  pthread_mutex_unlock(&g_table_mu);
  if (last)
    conn_free(c);
}

mqs_conn *mqs_conn_enter(MQHCONN h, PMQLONG cc, PMQLONG rc, int allow_broken)
{
  pthread_mutex_lock(&g_table_mu);
  mqs_conn *c = g_conns;
  while (c && c->id != h)
    c = c->next;
  if (c)
    c->refs++;
  pthread_mutex_unlock(&g_table_mu);
  if (!c) {
    mqs_set(cc, rc, MQCC_FAILED, MQRC_HCONN_ERROR);
    return NULL;
  }
  /* IBM's client: with HANDLE_SHARE_NO_BLOCK a second thread on a busy
   * handle fails at once; with BLOCK (or no sharing) it waits its turn. */
  if (c->cno_options & MQCNO_HANDLE_SHARE_NO_BLOCK) {
    if (pthread_mutex_trylock(&c->mu) != 0) {
      release_ref(c);
      mqs_set(cc, rc, MQCC_FAILED, MQRC_CALL_IN_PROGRESS);
      return NULL;
    }
  } else {
    pthread_mutex_lock(&c->mu);
  }
  MQLONG reason = MQRC_NONE;
  if (c->closed)
    reason = MQRC_HCONN_ERROR;
  else if (c->broken && !allow_broken && !c->recon)   /* a reconnectable one reconnects in mqs_call */
    reason = MQRC_CONNECTION_BROKEN;
  if (reason) {
    mqs_conn_leave(c);
    mqs_set(cc, rc, MQCC_FAILED, reason);
    return NULL;
  }
  return c;
}

void mqs_conn_leave(mqs_conn *c)
{
  pthread_mutex_unlock(&c->mu);
  release_ref(c);
}

void mqs_conn_break(mqs_conn *c)
{
  c->broken = 1;
  c->held.len = 0;            /* held puts go with the connection's unit of work */
  mqs_tls_close(c->ssl);
  c->ssl = NULL;
  if (c->fd >= 0) {
    shutdown(c->fd, SHUT_RDWR);
    close(c->fd);
    c->fd = -1;
  }
}

/* One exchange on fd: send b, receive the reply to the same op. */
static int exchange(int fd, void *ssl, mqs_buf *b, int timeout_ms, unsigned char **reply, mqs_rd *r,
                    MQLONG *cc, MQLONG *rc)
{
  *reply = NULL;
  if (b->oom)
    return -1;
  uint32_t length = (uint32_t)(b->len - 4);
  uint16_t op = (uint16_t)(b->p[4] | b->p[5] << 8);
  b->p[0] = (unsigned char)length;
  b->p[1] = (unsigned char)(length >> 8);
  b->p[2] = (unsigned char)(length >> 16);
  b->p[3] = (unsigned char)(length >> 24);
  /* Sending is bounded even when the reply may take forever (an MQGET
   * waiting without limit): a server that reads nothing is not alive. */
  int send_timeout = timeout_ms >= 0 ? timeout_ms : CONNECT_REPLY_TIMEOUT_MS;
  if (mqs_net_send(fd, ssl, b->p, b->len, send_timeout) != 0)
    return -1;
  uint16_t rop;
  size_t n;
  if (mqs_net_recv_frame(fd, ssl, timeout_ms, &rop, reply, &n) != 0)
    return -1;
  memset(r, 0, sizeof *r);
  r->p = *reply;
  r->len = n;
  *cc = mqs_get_i32(r);
  *rc = mqs_get_i32(r);
  if (rop != (op | MQS_REPLY_BIT) || r->bad) {
    free(*reply);
    *reply = NULL;
    return -1;
  }
  return 0;
}

int mqs_exchange(int fd, void *ssl, mqs_buf *b, int timeout_ms, unsigned char **reply, mqs_rd *r,
                 MQLONG *cc, MQLONG *rc)
{
  return exchange(fd, ssl, b, timeout_ms, reply, r, cc, rc);
}

/* After a reconnection lost the unit of work: MQCMIT fails 2003 and ends
 * it, MQBACK ends it, and a put or get under syncpoint fails 2003 until
 * then (reconnect.c). */
static MQLONG lost_uow_answer(mqs_conn *c, uint16_t op, int syncpoint)
{
  if (op == MQS_OP_CMIT || op == MQS_OP_BACK) {
    c->uow_lost = 0;
    return op == MQS_OP_CMIT ? MQRC_BACKED_OUT : MQRC_NONE;
  }
  return syncpoint ? MQRC_BACKED_OUT : MQRC_NONE;
}

/* Calls a reconnection may issue again when the break interrupted them;
 * the others' outcome is unknown (MQRC_CALL_INTERRUPTED). */
static int reissuable(uint16_t op)
{
  return op == MQS_OP_GET || op == MQS_OP_OPEN || op == MQS_OP_CLOSE || op == MQS_OP_INQ ||
         op == MQS_OP_BACK;
}

/* The exchange of a reconnectable connection: reconnect first when the
 * connection is gone, and after a break during the call. */
static MQLONG reconnecting_exchange(mqs_conn *c, mqs_buf *b, uint16_t op, int syncpoint, int timeout_ms,
                                    unsigned char **reply, mqs_rd *r, MQLONG *cc, MQLONG *rc)
{
  MQLONG result = mqs_reconnect_ensure(c);
  if (!result && c->uow_lost)
    result = lost_uow_answer(c, op, syncpoint);
  if (result)
    return result;
  if (exchange(c->fd, c->ssl, b, timeout_ms, reply, r, cc, rc) == 0)
    return MQRC_NONE;
  mqs_conn_break(c);
  if ((result = mqs_reconnect_ensure(c)) != MQRC_NONE)
    return result;
  if (op == MQS_OP_CMIT)
    c->uow_lost = 0;            /* it ended, one way or the other */
  if (!reissuable(op))
    return MQRC_CALL_INTERRUPTED;
  if (c->uow_lost && (result = lost_uow_answer(c, op, syncpoint)) != MQRC_NONE)
    return result;
  if (exchange(c->fd, c->ssl, b, timeout_ms, reply, r, cc, rc) == 0)
    return MQRC_NONE;
  mqs_conn_break(c);              /* the next call reconnects */
  return MQRC_CONNECTION_BROKEN;
}

MQLONG mqs_call(mqs_conn *c, mqs_buf *b, int timeout_ms, unsigned char **reply, mqs_rd *r,
                MQLONG *cc, MQLONG *rc)
{
  *reply = NULL;
  int syncpoint = c->call_syncpoint;
  c->call_syncpoint = 0;
  if (b->oom) {               /* nothing was sent: the connection is fine */
    mqs_buf_free(b);
    return MQRC_STORAGE_NOT_AVAILABLE;
  }
  uint16_t op = (uint16_t)(b->p[4] | b->p[5] << 8);
  MQLONG result = mqs_flush_held(c);   /* the held puts go first */
  if (result != MQRC_NONE) {
    mqs_buf_free(b);
    return result;
  }
  if (c->recon && op != MQS_OP_DISC) {
    result = reconnecting_exchange(c, b, op, syncpoint, timeout_ms, reply, r, cc, rc);
  } else if (exchange(c->fd, c->ssl, b, timeout_ms, reply, r, cc, rc) != 0) {
    mqs_conn_break(c);
    result = MQRC_CONNECTION_BROKEN;
  } else {
    result = MQRC_NONE;
  }
  mqs_buf_free(b);
  if (result == MQRC_NONE && *cc != MQCC_FAILED) {
    if (op == MQS_OP_CMIT || op == MQS_OP_BACK)
      c->in_uow = 0;
    else if (syncpoint)
      c->in_uow = 1;
  }
  return result;
}

/* IBM's receive timeout for a negotiated heartbeat interval: twice the
 * interval below a minute, the interval plus a minute from there. */
static int reply_timeout_ms(MQLONG hbint)
{
  if (hbint <= 0)
    hbint = MQS_SERVER_HBINT;
  long s = hbint < 60 ? 2L * hbint : hbint + 60L;
  return (int)(s * 1000);
}

/* ---- MQCONNX -------------------------------------------------------- */

typedef struct {
  int    fd;
  void  *ssl;
  char   qmgr[MQ_Q_MGR_NAME_LENGTH + 1];
  MQBYTE connid[MQ_CONNECTION_ID_LENGTH];
  char   qmid[MQ_Q_MGR_IDENTIFIER_LENGTH + 1];
  MQLONG max_msg_length;
  MQLONG server_hbint;
} connect_result;

/* CONNECT over one endpoint. Returns 0 with cc/rc the server's answer,
 * or the reason of a transport failure (2538 nothing listening, 2009 lost). */
static MQLONG connect_endpoint(const mqs_connect_params *p, const mqs_channel *ch,
                               const mqs_endpoint *e, connect_result *out, MQLONG *cc, MQLONG *rc)
{
  int fd = mqs_net_connect(e, ch->keepalive);
  if (fd < 0)
    return MQRC_HOST_NOT_AVAILABLE;
  void *ssl = NULL;
  if (ch->cipher[0]) {
    MQLONG tls_rc = mqs_tls_start(p->tls, ch, fd, CONNECT_REPLY_TIMEOUT_MS, &ssl);
    if (tls_rc) {
      close(fd);
      return tls_rc;
    }
  }
  mqs_buf b;
  mqs_buf_init(&b, MQS_OP_CONNECT);
  mqs_put_i32(&b, MQS_PROTOCOL_VERSION);
  mqs_put_cstr(&b, p->qmgr);
  mqs_put_cstr(&b, ch->name);
  mqs_put_cstr(&b, p->user);
  mqs_put_cstr(&b, p->password);
  mqs_put_cstr(&b, p->appl);
  mqs_put_i32(&b, p->cno_options);
  mqs_put_i32(&b, ch->max_msg_length);
  unsigned char *reply = NULL;
  mqs_rd r;
  int failed = exchange(fd, ssl, &b, CONNECT_REPLY_TIMEOUT_MS, &reply, &r, cc, rc);
  /* The frame held the password: clear it before it goes back to malloc. */
  if (b.p)
    memset(b.p, 0, b.len);
  mqs_buf_free(&b);
  if (failed) {
    /* A TLS 1.3 server refuses a client certificate after the client has
     * finished its handshake: the refusal arrives here, as an alert. */
    MQLONG reason = mqs_tls_failed(ssl) ? MQRC_SSL_INITIALIZATION_ERROR : MQRC_CONNECTION_BROKEN;
    mqs_tls_close(ssl);
    close(fd);
    return reason;
  }
  memset(out, 0, sizeof *out);
  char qmgr[MQ_Q_MGR_NAME_LENGTH];
  mqs_get_fixed(&r, qmgr, sizeof qmgr);
  mqs_fixed_to_c(out->qmgr, sizeof out->qmgr, qmgr, sizeof qmgr);
  size_t n;
  const unsigned char *id = mqs_get_bytes(&r, &n);
  if (id)
    memcpy(out->connid, id, n < sizeof out->connid ? n : sizeof out->connid);
  const unsigned char *qmid = mqs_get_bytes(&r, &n);  /* for reconnection; MQINQ answers it */
  if (qmid)
    memcpy(out->qmid, qmid, n < sizeof out->qmid - 1 ? n : sizeof out->qmid - 1);
  out->max_msg_length = mqs_get_i32(&r);
  /* heartbeatInterval is optional: older servers end the reply here. */
  out->server_hbint = r.off < r.len ? mqs_get_i32(&r) : MQS_SERVER_HBINT;
  int bad = r.bad;
  free(reply);
  if (bad || *cc == MQCC_FAILED) {
    mqs_tls_close(ssl);
    close(fd);
    return bad ? MQRC_CONNECTION_BROKEN : MQRC_NONE;
  }
  out->fd = fd;
  out->ssl = ssl;
  return MQRC_NONE;
}

/* Try every channel's endpoints in order. A transport failure or 2059
 * (listener up, queue manager not there) moves on; any other answer
 * decides. The last failure is the result. */
static MQLONG connect_any(const mqs_connect_params *p, connect_result *res, const mqs_channel **used,
                          MQLONG *cc)
{
  MQLONG last = MQRC_HOST_NOT_AVAILABLE;
  *cc = MQCC_FAILED;
  for (int i = 0; i < p->nchannels; i++) {
    const mqs_channel *ch = &p->channels[i];
    for (int j = 0; j < ch->nendpoints; j++) {
      MQLONG ecc = MQCC_FAILED, erc = MQRC_NONE;
      MQLONG transport = connect_endpoint(p, ch, &ch->endpoints[j], res, &ecc, &erc);
      if (transport) {
        last = transport;
        continue;
      }
      if (ecc == MQCC_FAILED && erc == MQRC_Q_MGR_NOT_AVAILABLE) {
        last = erc;
        continue;
      }
      *used = ch;
      *cc = ecc;
      return erc;
    }
  }
  return last;
}

MQLONG mqs_conn_redial(mqs_conn *c, const mqs_connect_params *p, char *qmid, size_t qmidsz)
{
  connect_result res;
  const mqs_channel *ch = NULL;
  MQLONG cc = MQCC_FAILED;
  memset(&res, 0, sizeof res);
  res.fd = -1;
  MQLONG rc = connect_any(p, &res, &ch, &cc);
  if (cc == MQCC_FAILED)
    return rc ? rc : MQRC_UNEXPECTED_ERROR;
  c->fd = res.fd;
  c->ssl = res.ssl;
  c->max_msg_length = res.max_msg_length;
  c->reply_timeout_ms = reply_timeout_ms(ch->hbint > res.server_hbint ? ch->hbint : res.server_hbint);
  snprintf(qmid, qmidsz, "%s", res.qmid);
  return MQRC_NONE;
}

MQS_EXPORT void MQCONNX(PMQCHAR pQMgrName, PMQCNO pConnectOpts, PMQHCONN pHconn,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  if (!pHconn) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_HCONN_ERROR);
    return;
  }
  *pHconn = MQHC_UNUSABLE_HCONN;
  mqs_connect_params p;
  MQLONG rc = mqs_connect_params_read(pQMgrName, pConnectOpts, &p);
  connect_result res;
  const mqs_channel *ch = NULL;
  MQLONG cc = MQCC_FAILED;
  memset(&res, 0, sizeof res);
  res.fd = -1;
  res.ssl = NULL;
  if (!rc)
    rc = connect_any(&p, &res, &ch, &cc);
  MQLONG cno_options = p.cno_options;
  MQLONG client_hbint = ch ? ch->hbint : 0;
  if (cc == MQCC_FAILED) {
    mqs_connect_params_free(&p);
    mqs_set(pCompCode, pReason, MQCC_FAILED, rc ? rc : MQRC_UNEXPECTED_ERROR);
    return;
  }

  mqs_conn *c = calloc(1, sizeof *c);
  if (!c || mqs_reconnect_setup(c, &p, ch, res.qmid) != 0) {
    free(c);
    mqs_connect_params_free(&p);
    mqs_tls_close(res.ssl);
    close(res.fd);
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_STORAGE_NOT_AVAILABLE);
    return;
  }
  mqs_connect_params_free(&p);   /* empty when the connection took them over */
  pthread_mutex_init(&c->mu, NULL);
  c->fd = res.fd;
  c->ssl = res.ssl;
  c->cno_options = cno_options;
  c->max_msg_length = res.max_msg_length;
  memcpy(c->connid, res.connid, sizeof c->connid);
  /* The agreed heartbeat interval is the larger of the two sides'. */
  c->reply_timeout_ms = reply_timeout_ms(client_hbint > res.server_hbint ? client_hbint : res.server_hbint);
  pthread_mutex_lock(&g_table_mu);
  c->id = g_next_hconn++;
  c->next = g_conns;
  g_conns = c;
  pthread_mutex_unlock(&g_table_mu);

  if (pConnectOpts->Version >= MQCNO_VERSION_5)
    memcpy(pConnectOpts->ConnectionId, res.connid, sizeof res.connid);
  *pHconn = c->id;
  mqs_set(pCompCode, pReason, cc, rc);
}

MQS_EXPORT void MQCONN(PMQCHAR pQMgrName, PMQHCONN pHconn, PMQLONG pCompCode, PMQLONG pReason)
{
  MQCNO cno;
  memset(&cno, 0, sizeof cno);
  memcpy(cno.StrucId, MQCNO_STRUC_ID, 4);
  cno.Version = MQCNO_VERSION_1;
  cno.Options = MQCNO_HANDLE_SHARE_BLOCK;
  MQCONNX(pQMgrName, &cno, pHconn, pCompCode, pReason);
}

/* ---- MQDISC --------------------------------------------------------- */

MQS_EXPORT void MQDISC(PMQHCONN pHconn, PMQLONG pCompCode, PMQLONG pReason)
{
  if (!pHconn) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_HCONN_ERROR);
    return;
  }
  mqs_conn *c = mqs_conn_enter(*pHconn, pCompCode, pReason, 1);
  if (!c)
    return;
  MQLONG cc = MQCC_OK, rc = MQRC_NONE;
  if (!c->broken) {
    /* The server commits an open unit of work (IBM's MQDISC does). A
     * connection lost now is gone either way: MQDISC still succeeds. */
    mqs_buf b;
    unsigned char *reply = NULL;
    mqs_rd r;
    mqs_buf_init(&b, MQS_OP_DISC);
    if (mqs_call(c, &b, c->reply_timeout_ms, &reply, &r, &cc, &rc) != MQRC_NONE) {
      cc = MQCC_OK;
      rc = MQRC_NONE;
    }
    free(reply);
  }
  mqs_conn_break(c);
  pthread_mutex_lock(&g_table_mu);
  for (mqs_conn **pp = &g_conns; *pp; pp = &(*pp)->next)
    if (*pp == c) {
      *pp = c->next;
      break;
    }
  c->closed = 1;
  pthread_mutex_unlock(&g_table_mu);
  mqs_hmsg_drop_for_conn(c->id);
  mqs_conn_leave(c);
  *pHconn = MQHC_UNUSABLE_HCONN;
  mqs_set(pCompCode, pReason, cc, rc);
}

/* ---- MQCMIT / MQBACK ------------------------------------------------ */

static void simple_call(MQHCONN Hconn, uint16_t op, PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason, 0);
  if (!c)
    return;
  mqs_buf b;
  unsigned char *reply = NULL;
  mqs_rd r;
  MQLONG cc = MQCC_FAILED, rc;
  mqs_buf_init(&b, op);
  MQLONG broken = mqs_call(c, &b, c->reply_timeout_ms, &reply, &r, &cc, &rc);
  free(reply);
  mqs_conn_leave(c);
  if (broken)
    mqs_set(pCompCode, pReason, MQCC_FAILED, broken);
  else
    mqs_set(pCompCode, pReason, cc, rc);
}

MQS_EXPORT void MQCMIT(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason)
{
  simple_call(Hconn, MQS_OP_CMIT, pCompCode, pReason);
}

MQS_EXPORT void MQBACK(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason)
{
  simple_call(Hconn, MQS_OP_BACK, pCompCode, pReason);
}
