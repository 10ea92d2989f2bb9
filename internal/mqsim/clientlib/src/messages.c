/*
 * messages.c -- MQPUT, MQPUT1 and MQGET, marshalled to the server.
 *
 * The client checks the structures it must read (MQMD, MQPMO, MQGMO, MQOD)
 * and the buffers; everything about the message and the queue is the
 * server's. A version-1 MQMD travels as version 2 and only the caller's
 * version's fields come back.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_MESSAGE_LENGTH 104857600   /* IBM's largest MAXMSGL */

static MQLONG check_md(const MQMD *md)
{
  if (!mqs_strucid_ok(md, MQMD_STRUC_ID) || md->Version < MQMD_VERSION_1 ||
      md->Version > MQMD_CURRENT_VERSION)
    return MQRC_MD_ERROR;
  return MQRC_NONE;
}

static MQLONG check_buffer(MQLONG len, const void *buf)
{
  if (len < 0)
    return MQRC_BUFFER_LENGTH_ERROR;
  if (len > 0 && !buf)
    return MQRC_BUFFER_ERROR;
  return MQRC_NONE;
}

/* ---- MQPUT / MQPUT1 ------------------------------------------------- */

static MQLONG check_put(const mqs_conn *c, const MQMD *md, const MQPMO *pmo, MQLONG len, const void *buf)
{
  MQLONG rc = check_md(md);
  if (rc)
    return rc;
  if (!mqs_strucid_ok(pmo, MQPMO_STRUC_ID) || pmo->Version < MQPMO_VERSION_1 ||
      pmo->Version > MQPMO_CURRENT_VERSION)
    return MQRC_PMO_ERROR;
  if ((rc = check_buffer(len, buf)) != MQRC_NONE)
    return rc;
  /* Longer than the channel allows: IBM's client refuses it itself. */
  if (len > MAX_MESSAGE_LENGTH || (c->max_msg_length > 0 && len > c->max_msg_length))
    return MQRC_DATA_LENGTH_ERROR;
  return MQRC_NONE;
}

/* The part of a put request after its target: options, MQMD, properties,
 * data. Returns a reason code. */
static MQLONG encode_message(mqs_buf *b, const MQMD *md, const MQPMO *pmo, MQLONG options, MQLONG len,
                             const void *buf)
{
  /* Room for the message and what goes with it at once, rather than the
   * buffer doubling its way there, copying as it goes. */
  mqs_buf_reserve(b, 4 + MQS_MD_WIRE_LENGTH + 4 + (len > 0 ? (size_t)len : 0) + 256);
  mqs_put_i32(b, options);
  mqs_put_md(b, md);
  MQLONG rc = mqs_props_encode_for_put(b, pmo);
  if (rc)
    return rc;
  mqs_put_i32(b, len);
  mqs_put_bytes(b, buf, (size_t)len);
  return MQRC_NONE;
}

/* What a put gives back: the identifiers and context the queue manager set
 * (IBM's output fields of MQMD on MQPUT) and where the message went. */
static void decode_put_reply(mqs_rd *r, MQMD *md, MQPMO *pmo, MQOD *od, int ok)
{
  MQMD out;
  char qname[MQ_Q_NAME_LENGTH], qmname[MQ_Q_MGR_NAME_LENGTH];
  memset(&out, 0, sizeof out);
  mqs_get_md(r, &out);
  mqs_get_fixed(r, qname, sizeof qname);
  mqs_get_fixed(r, qmname, sizeof qmname);
  if (r->bad || !ok)
    return;
  memcpy(md->MsgId, out.MsgId, sizeof md->MsgId);
  memcpy(md->CorrelId, out.CorrelId, sizeof md->CorrelId);
  memcpy(md->ReplyToQMgr, out.ReplyToQMgr, sizeof md->ReplyToQMgr);
  memcpy(md->UserIdentifier, out.UserIdentifier, sizeof md->UserIdentifier);
  memcpy(md->AccountingToken, out.AccountingToken, sizeof md->AccountingToken);
  memcpy(md->ApplIdentityData, out.ApplIdentityData, sizeof md->ApplIdentityData);
  md->PutApplType = out.PutApplType;
  memcpy(md->PutApplName, out.PutApplName, sizeof md->PutApplName);
  memcpy(md->PutDate, out.PutDate, sizeof md->PutDate);
  memcpy(md->PutTime, out.PutTime, sizeof md->PutTime);
  memcpy(md->ApplOriginData, out.ApplOriginData, sizeof md->ApplOriginData);
  memcpy(pmo->ResolvedQName, qname, sizeof qname);
  memcpy(pmo->ResolvedQMgrName, qmname, sizeof qmname);
  if (od && od->Version >= MQOD_VERSION_3) {
    memcpy(od->ResolvedQName, qname, sizeof qname);
    memcpy(od->ResolvedQMgrName, qmname, sizeof qmname);
  }
}

/* Whether a put is asynchronous: MQPMO_ASYNC_RESPONSE alone. With
 * MQPMO_RESPONSE_AS_Q_DEF it is the queue's DEFPRESP, SYNC on every queue
 * here; with both response options the server answers 2046. */
static int put_is_async(const MQPMO *pmo)
{
  return (pmo->Options & MQPMO_ASYNC_RESPONSE) && !(pmo->Options & MQPMO_SYNC_RESPONSE);
}

/* An asynchronous put: the client makes the identifiers the queue manager
 * would (IBM's client does so too), sends them as given, and waits for
 * nothing; MQSTAT reports the outcome. */
static void put_async(mqs_conn *c, mqs_buf *b, MQMD *md, MQPMO *pmo, MQLONG len, const void *buf,
                      PMQLONG pCompCode, PMQLONG pReason)
{
  static const MQBYTE24 none = {0};
  MQLONG options = pmo->Options & ~(MQPMO_NEW_MSG_ID | MQPMO_NEW_CORREL_ID);
  if ((pmo->Options & MQPMO_NEW_MSG_ID) || memcmp(md->MsgId, none, sizeof none) == 0)
    mqs_async_new_id(c, md->MsgId);
  if (pmo->Options & MQPMO_NEW_CORREL_ID)
    mqs_async_new_id(c, md->CorrelId);
  MQLONG rc = encode_message(b, md, pmo, options, len, buf);
  if (rc) {
    mqs_buf_free(b);
    mqs_set(pCompCode, pReason, MQCC_FAILED, rc);
    return;
  }
  rc = mqs_send_no_reply(c, b, (pmo->Options & MQPMO_SYNCPOINT) != 0);
  mqs_set(pCompCode, pReason, rc ? MQCC_FAILED : MQCC_OK, rc);
}

/* Send a PUT or PUT1 request in b and decode its reply. */
static void put_call(mqs_conn *c, mqs_buf *b, MQMD *md, MQPMO *pmo, MQOD *od, MQLONG len,
                     const void *buf, PMQLONG pCompCode, PMQLONG pReason)
{
  if (put_is_async(pmo)) {
    put_async(c, b, md, pmo, len, buf, pCompCode, pReason);
    return;
  }
  MQLONG rc = encode_message(b, md, pmo, pmo->Options, len, buf);
  if (rc) {
    mqs_buf_free(b);
    mqs_set(pCompCode, pReason, MQCC_FAILED, rc);
    return;
  }
  unsigned char *reply = NULL;
  mqs_rd r;
  MQLONG cc = MQCC_FAILED;
  c->call_syncpoint = (pmo->Options & MQPMO_SYNCPOINT) != 0;
  MQLONG failed = mqs_call(c, b, c->reply_timeout_ms, &reply, &r, &cc, &rc);
  if (!failed) {
    decode_put_reply(&r, md, pmo, od, cc != MQCC_FAILED);
    if (r.bad) {
      mqs_conn_break(c);
      failed = MQRC_CONNECTION_BROKEN;
    }
  }
  free(reply);
  if (failed)
    mqs_set(pCompCode, pReason, MQCC_FAILED, failed);
  else
    mqs_set(pCompCode, pReason, cc, rc);
}

MQS_EXPORT void MQPUT(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
                      MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason, 0);
  if (!c)
    return;
  MQLONG rc = check_put(c, pMsgDesc, pPutMsgOpts, BufferLength, pBuffer);
  if (rc) {
    mqs_conn_leave(c);
    mqs_set(pCompCode, pReason, MQCC_FAILED, rc);
    return;
  }
  mqs_buf b;
  mqs_buf_init(&b, MQS_OP_PUT);
  mqs_put_i32(&b, Hobj);
  put_call(c, &b, pMsgDesc, pPutMsgOpts, NULL, BufferLength, pBuffer, pCompCode, pReason);
  mqs_conn_leave(c);
}

MQS_EXPORT void MQPUT1(MQHCONN Hconn, PMQVOID pObjDesc, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
                       MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason)
{
  MQOD *od = pObjDesc;
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason, 0);
  if (!c)
    return;
  MQLONG rc = MQRC_NONE;
  if (!mqs_strucid_ok(od, MQOD_STRUC_ID) || od->Version < MQOD_VERSION_1 ||
      od->Version > MQOD_CURRENT_VERSION)
    rc = MQRC_OD_ERROR;
  else
    rc = check_put(c, pMsgDesc, pPutMsgOpts, BufferLength, pBuffer);
  if (rc) {
    mqs_conn_leave(c);
    mqs_set(pCompCode, pReason, MQCC_FAILED, rc);
    return;
  }
  mqs_buf b;
  mqs_buf_init(&b, MQS_OP_PUT1);
  mqs_put_i32(&b, od->ObjectType);
  mqs_put_fixed(&b, od->ObjectName, MQ_OBJECT_NAME_LENGTH);
  mqs_put_fixed(&b, od->ObjectQMgrName, MQ_Q_MGR_NAME_LENGTH);
  put_call(c, &b, pMsgDesc, pPutMsgOpts, od, BufferLength, pBuffer, pCompCode, pReason);
  mqs_conn_leave(c);
}

/* ---- MQGET ---------------------------------------------------------- */

static MQLONG check_get(const MQMD *md, const MQGMO *gmo, MQLONG len, const void *buf,
                        const MQLONG *pDataLength, int *want_props)
{
  MQLONG rc = check_md(md);
  if (rc)
    return rc;
  if (!mqs_strucid_ok(gmo, MQGMO_STRUC_ID) || gmo->Version < MQGMO_VERSION_1 ||
      gmo->Version > MQGMO_CURRENT_VERSION)
    return MQRC_GMO_ERROR;
  if ((rc = check_buffer(len, buf)) != MQRC_NONE)
    return rc;
  if (!pDataLength)
    return MQRC_DATA_LENGTH_ERROR;
  *want_props = gmo->Version >= MQGMO_VERSION_4 && gmo->MsgHandle != MQHM_NONE &&
                !(gmo->Options & MQGMO_NO_PROPERTIES);
  if (*want_props && !mqs_hmsg_exists(gmo->MsgHandle))
    return MQRC_HMSG_ERROR;
  return MQRC_NONE;
}

/* How long the reply may take: a waiting get holds the connection for its
 * wait interval, so the bound is that plus the usual one; an unlimited
 * wait has none (keepalive still notices a vanished peer). */
static int get_timeout_ms(const mqs_conn *c, const MQGMO *gmo)
{
  if (!(gmo->Options & MQGMO_WAIT) || gmo->WaitInterval < 0) {
    if ((gmo->Options & MQGMO_WAIT) && gmo->WaitInterval == MQWI_UNLIMITED)
      return -1;
    return c->reply_timeout_ms;
  }
  long long t = (long long)gmo->WaitInterval + c->reply_timeout_ms;
  return t > 0x7fffffff ? -1 : (int)t;
}

/* Copy the message descriptor back, keeping the caller's StrucId and
 * Version and touching only that version's fields. */
static void md_out(MQMD *md, const MQMD *got)
{
  size_t n = md->Version >= MQMD_VERSION_2 ? sizeof(MQMD) : (size_t)MQMD_LENGTH_1;
  size_t head = offsetof(MQMD, Report);
  memcpy((char *)md + head, (const char *)got + head, n - head);
}

MQS_EXPORT void MQGET(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pGetMsgOpts,
                      MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pDataLength,
                      PMQLONG pCompCode, PMQLONG pReason)
{
  MQMD *md = pMsgDesc;
  MQGMO *gmo = pGetMsgOpts;
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason, 0);
  if (!c)
    return;
  if (pDataLength)
    *pDataLength = 0;
  int want_props = 0;
  MQLONG rc = check_get(md, gmo, BufferLength, pBuffer, pDataLength, &want_props);
  if (rc) {
    mqs_conn_leave(c);
    mqs_set(pCompCode, pReason, MQCC_FAILED, rc);
    return;
  }

  mqs_buf b;
  mqs_buf_init(&b, MQS_OP_GET);
  mqs_put_i32(&b, Hobj);
  mqs_put_i32(&b, gmo->Options);
  mqs_put_i32(&b, gmo->WaitInterval);
  mqs_put_i32(&b, gmo->Version >= MQGMO_VERSION_2 ? gmo->MatchOptions
                                                  : (MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID));
  mqs_put_md(&b, md);
  mqs_put_i32(&b, BufferLength);
  mqs_put_i32(&b, want_props);
  unsigned char *reply = NULL;
  mqs_rd r;
  MQLONG cc = MQCC_FAILED;
  c->call_syncpoint = (gmo->Options & (MQGMO_SYNCPOINT | MQGMO_SYNCPOINT_IF_PERSISTENT)) != 0;
  MQLONG failed = mqs_call(c, &b, get_timeout_ms(c, gmo), &reply, &r, &cc, &rc);
  if (!failed) {
    MQMD got;
    mqs_get_md(&r, &got);
    int32_t full = mqs_get_i32(&r);
    size_t n;
    const unsigned char *data = mqs_get_bytes(&r, &n);
    /* A message came (2080 too: IBM returns its MQMD and length). */
    int delivered = cc != MQCC_FAILED || rc == MQRC_TRUNCATED_MSG_FAILED;
    if (!r.bad && delivered) {
      md_out(md, &got);
      *pDataLength = full;
      if (n > (size_t)BufferLength)
        n = (size_t)BufferLength;
      if (n)
        memcpy(pBuffer, data, n);
    }
    if (mqs_props_decode_into(&r, want_props && cc != MQCC_FAILED ? gmo->MsgHandle : MQHM_NONE) != 0)
      r.bad = 1;
    char qname[MQ_Q_NAME_LENGTH];
    mqs_get_fixed(&r, qname, sizeof qname);
    if (r.bad) {
      mqs_conn_break(c);
      failed = MQRC_CONNECTION_BROKEN;
    } else if (delivered) {
      memcpy(gmo->ResolvedQName, qname, sizeof qname);
      /* The server has no groups or segments: every message stands alone. */
      if (gmo->Version >= MQGMO_VERSION_2) {
        gmo->GroupStatus = MQGS_NOT_IN_GROUP;
        gmo->SegmentStatus = MQSS_NOT_A_SEGMENT;
        gmo->Segmentation = MQSEG_INHIBITED;
      }
      if (gmo->Version >= MQGMO_VERSION_3) {
        memset(gmo->MsgToken, 0, sizeof gmo->MsgToken);
        gmo->ReturnedLength = (MQLONG)n;
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
