/*
 * async.c -- asynchronous put (MQPMO_ASYNC_RESPONSE) and MQSTAT.
 *
 * An asynchronous put is a PUT or PUT1 frame with MQS_FLAG_NO_REPLY: the
 * client does not wait, the server counts the outcome on the connection,
 * and MQSTAT(MQSTAT_TYPE_ASYNC_ERROR) returns and resets the counts and
 * the first error. Frames are handled in order on the one connection, so
 * MQSTAT's reply covers every put sent before it.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Asynchronous puts under syncpoint are held back and sent together, up
 * to this many bytes at a time: no getter can see them before MQCMIT, a
 * call with a reply, which sends them first, in order. A connection lost
 * before they went fails that MQCMIT (2009), and the server backs the unit
 * of work out: a held put is never lost silently. */
#define HOLD_BYTES 65536

MQLONG mqs_flush_held(mqs_conn *c)
{
  if (c->held.len == 0)
    return MQRC_NONE;
  int failed = c->fd < 0 || mqs_net_send(c->fd, c->ssl, c->held.p, c->held.len, c->reply_timeout_ms) != 0;
  c->held.len = 0;
  if (c->held.cap > 4 * HOLD_BYTES)   /* a large message passed through: give it back */
    mqs_buf_free(&c->held);
  if (failed) {
    mqs_conn_break(c);
    return MQRC_CONNECTION_BROKEN;
  }
  return MQRC_NONE;
}

MQLONG mqs_send_no_reply(mqs_conn *c, mqs_buf *b, int syncpoint)
{
  if (b->oom) {               /* nothing was sent: the connection is fine */
    mqs_buf_free(b);
    return MQRC_STORAGE_NOT_AVAILABLE;
  }
  MQLONG rc;
  if (c->recon && (rc = mqs_reconnect_ensure(c)) != MQRC_NONE) {
    mqs_buf_free(b);
    return rc;
  }
  uint32_t length = (uint32_t)(b->len - 4);
  b->p[0] = (unsigned char)length;
  b->p[1] = (unsigned char)(length >> 8);
  b->p[2] = (unsigned char)(length >> 16);
  b->p[3] = (unsigned char)(length >> 24);
  b->p[6] = (unsigned char)(MQS_FLAG_NO_REPLY & 0xff);
  b->p[7] = (unsigned char)(MQS_FLAG_NO_REPLY >> 8);
  /* A reconnectable connection sends at once: a reconnection must know
   * which puts went before it. */
  if (syncpoint && !c->recon && b->len < HOLD_BYTES) {
    if (c->held.len + b->len > HOLD_BYTES && (rc = mqs_flush_held(c)) != MQRC_NONE) {
      mqs_buf_free(b);
      return rc;
    }
    mqs_put_bytes(&c->held, b->p, b->len);
    if (!c->held.oom) {
      mqs_buf_free(b);
      return MQRC_NONE;
    }
    c->held.oom = 0;          /* no room to hold it: send it as it is, after the others */
  }
  if ((rc = mqs_flush_held(c)) != MQRC_NONE) {
    mqs_buf_free(b);
    return rc;
  }
  int failed = mqs_net_send(c->fd, c->ssl, b->p, b->len, c->reply_timeout_ms) != 0;
  mqs_buf_free(b);
  if (failed) {
    mqs_conn_break(c);
    /* A reconnectable connection connects again at the next call; this
     * put's outcome is unknown. */
    return c->recon ? MQRC_CALL_INTERRUPTED : MQRC_CONNECTION_BROKEN;
  }
  return MQRC_NONE;
}

void mqs_async_new_id(mqs_conn *c, MQBYTE24 id)
{
  /* The ConnectionId is "MQCT", the queue manager's name in 12, then 8
   * bytes unique to the connection: its low 4 and a count of the
   * connection's puts make the suffix. */
  uint32_t seq = ++c->async_seq;
  memcpy(id, "AMQ ", 4);
  memcpy(id + 4, c->connid + 4, 12);
  memcpy(id + 16, c->connid + 20, 4);
  id[20] = (MQBYTE)(seq >> 24);
  id[21] = (MQBYTE)(seq >> 16);
  id[22] = (MQBYTE)(seq >> 8);
  id[23] = (MQBYTE)seq;
}

MQS_EXPORT void MQSTAT(MQHCONN Hconn, MQLONG Type, PMQVOID pStatus, PMQLONG pCompCode, PMQLONG pReason)
{
  MQSTS *sts = pStatus;
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason, 0);
  if (!c)
    return;
  if (!sts || !mqs_strucid_ok(sts, MQSTS_STRUC_ID) || sts->Version < MQSTS_VERSION_1 ||
      sts->Version > MQSTS_CURRENT_VERSION) {
    mqs_conn_leave(c);
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_STS_ERROR);
    return;
  }
  mqs_buf b;
  mqs_buf_init(&b, MQS_OP_STAT);
  mqs_put_i32(&b, Type);
  unsigned char *reply = NULL;
  mqs_rd r;
  MQLONG cc = MQCC_FAILED, rc = MQRC_NONE;
  MQLONG failed = mqs_call(c, &b, c->reply_timeout_ms, &reply, &r, &cc, &rc);
  if (!failed) {
    MQSTS got;
    memset(&got, 0, sizeof got);
    got.CompCode = mqs_get_i32(&r);
    got.Reason = mqs_get_i32(&r);
    got.PutSuccessCount = mqs_get_i32(&r);
    got.PutWarningCount = mqs_get_i32(&r);
    got.PutFailureCount = mqs_get_i32(&r);
    got.ObjectType = mqs_get_i32(&r);
    mqs_get_fixed(&r, got.ObjectName, sizeof got.ObjectName);
    mqs_get_fixed(&r, got.ObjectQMgrName, sizeof got.ObjectQMgrName);
    mqs_get_fixed(&r, got.ResolvedObjectName, sizeof got.ResolvedObjectName);
    mqs_get_fixed(&r, got.ResolvedQMgrName, sizeof got.ResolvedQMgrName);
    if (r.bad) {
      mqs_conn_break(c);
      failed = MQRC_CONNECTION_BROKEN;
    } else if (cc != MQCC_FAILED) {
      size_t head = offsetof(MQSTS, CompCode);
      memcpy((char *)sts + head, (const char *)&got + head, offsetof(MQSTS, ObjectString) - head);
      if (sts->Version >= MQSTS_VERSION_2) {
        /* Only queues are put to here: no topic string, no subscription. */
        sts->ObjectString.VSLength = 0;
        sts->SubName.VSLength = 0;
        sts->OpenOptions = 0;
        sts->SubOptions = 0;
      }
    }
  }
  free(reply);
  mqs_conn_leave(c);
  if (failed)
    mqs_set(pCompCode, pReason, MQCC_FAILED, failed);
  else
    mqs_set(pCompCode, pReason, cc, rc);
}
