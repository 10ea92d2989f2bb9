/*
 * objects.c -- MQOPEN, MQCLOSE and MQINQ, marshalled to the server.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_SELECTORS 256

MQS_EXPORT void MQOPEN(MQHCONN Hconn, PMQVOID pObjDesc, MQLONG Options, PMQHOBJ pHobj,
                       PMQLONG pCompCode, PMQLONG pReason)
{
  MQOD *od = pObjDesc;
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason, 0);
  if (!c)
    return;
  if (pHobj)
    *pHobj = MQHO_UNUSABLE_HOBJ;
  if (!pHobj) {
    mqs_conn_leave(c);
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_HOBJ_ERROR);
    return;
  }
  if (!mqs_strucid_ok(od, MQOD_STRUC_ID) || od->Version < MQOD_VERSION_1 ||
      od->Version > MQOD_CURRENT_VERSION) {
    mqs_conn_leave(c);
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_OD_ERROR);
    return;
  }
  mqs_buf b;
  mqs_buf_init(&b, MQS_OP_OPEN);
  mqs_put_i32(&b, od->ObjectType);
  mqs_put_fixed(&b, od->ObjectName, MQ_OBJECT_NAME_LENGTH);
  mqs_put_fixed(&b, od->ObjectQMgrName, MQ_Q_MGR_NAME_LENGTH);
  mqs_put_fixed(&b, od->DynamicQName, MQ_Q_NAME_LENGTH);
  mqs_put_i32(&b, Options);
  unsigned char *reply = NULL;
  mqs_rd r;
  MQLONG cc = MQCC_FAILED, rc;
  MQLONG broken = mqs_call(c, &b, c->reply_timeout_ms, &reply, &r, &cc, &rc);
  if (!broken) {
    MQHOBJ h = mqs_get_i32(&r);
    char qname[MQ_Q_NAME_LENGTH], qmname[MQ_Q_MGR_NAME_LENGTH];
    mqs_get_fixed(&r, qname, sizeof qname);
    mqs_get_fixed(&r, qmname, sizeof qmname);
    /* objectName is optional: the dynamic queue a model queue created;
       older servers end the reply before it. */
    char objname[MQ_OBJECT_NAME_LENGTH] = {0};
    if (r.off < r.len)
      mqs_get_fixed(&r, objname, sizeof objname);
    if (r.bad) {
      mqs_conn_break(c);
      broken = MQRC_CONNECTION_BROKEN;
    } else if (cc != MQCC_FAILED) {
      *pHobj = h;
      mqs_reconnect_opened(c, h, od, Options);
      if (objname[0] != ' ' && objname[0] != '\0')
        memcpy(od->ObjectName, objname, sizeof objname);
      if (od->Version >= MQOD_VERSION_3) {
        memcpy(od->ResolvedQName, qname, sizeof qname);
        memcpy(od->ResolvedQMgrName, qmname, sizeof qmname);
      }
      if (od->Version >= MQOD_VERSION_4) {
        od->ResolvedType = od->ObjectType;
        od->ResObjectString.VSLength = 0;
      }
    }
  }
  free(reply);
  mqs_conn_leave(c);
  if (broken)
    mqs_set(pCompCode, pReason, MQCC_FAILED, broken);
  else
    mqs_set(pCompCode, pReason, cc, rc);
}

MQS_EXPORT void MQCLOSE(MQHCONN Hconn, PMQHOBJ pHobj, MQLONG Options,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason, 0);
  if (!c)
    return;
  if (!pHobj) {
    mqs_conn_leave(c);
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_HOBJ_ERROR);
    return;
  }
  mqs_buf b;
  mqs_buf_init(&b, MQS_OP_CLOSE);
  mqs_put_i32(&b, *pHobj);
  mqs_put_i32(&b, Options);
  unsigned char *reply = NULL;
  mqs_rd r;
  MQLONG cc = MQCC_FAILED, rc;
  MQLONG broken = mqs_call(c, &b, c->reply_timeout_ms, &reply, &r, &cc, &rc);
  free(reply);
  if (!broken && cc != MQCC_FAILED)
    mqs_reconnect_closed(c, *pHobj);
  mqs_conn_leave(c);
  if (broken) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, broken);
    return;
  }
  if (cc != MQCC_FAILED)
    *pHobj = MQHO_UNUSABLE_HOBJ;
  mqs_set(pCompCode, pReason, cc, rc);
}

/* The caller's arrays are checked here, as IBM's client checks them before
 * anything is sent. */
static MQLONG check_inq_args(MQLONG SelectorCount, const MQLONG *pSelectors, MQLONG IntAttrCount,
                             const MQLONG *pIntAttrs, MQLONG CharAttrLength, const MQCHAR *pCharAttrs)
{
  if (SelectorCount < 0 || SelectorCount > MAX_SELECTORS)
    return MQRC_SELECTOR_COUNT_ERROR;
  if (SelectorCount > 0 && !pSelectors)
    return MQRC_SELECTOR_ERROR;
  if (IntAttrCount < 0)
    return MQRC_INT_ATTR_COUNT_ERROR;
  if (IntAttrCount > 0 && !pIntAttrs)
    return MQRC_INT_ATTRS_ARRAY_ERROR;
  if (CharAttrLength < 0)
    return MQRC_CHAR_ATTR_LENGTH_ERROR;
  if (CharAttrLength > 0 && !pCharAttrs)
    return MQRC_CHAR_ATTRS_ERROR;
  return MQRC_NONE;
}

MQS_EXPORT void MQINQ(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount, PMQLONG pSelectors,
                      MQLONG IntAttrCount, PMQLONG pIntAttrs, MQLONG CharAttrLength,
                      PMQCHAR pCharAttrs, PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason, 0);
  if (!c)
    return;
  MQLONG bad = check_inq_args(SelectorCount, pSelectors, IntAttrCount, pIntAttrs, CharAttrLength,
                              pCharAttrs);
  if (bad) {
    mqs_conn_leave(c);
    mqs_set(pCompCode, pReason, MQCC_FAILED, bad);
    return;
  }
  mqs_buf b;
  mqs_buf_init(&b, MQS_OP_INQ);
  mqs_put_i32(&b, Hobj);
  mqs_put_i32(&b, SelectorCount);
  for (MQLONG i = 0; i < SelectorCount; i++)
    mqs_put_i32(&b, pSelectors[i]);
  mqs_put_i32(&b, IntAttrCount);
  mqs_put_i32(&b, CharAttrLength);
  unsigned char *reply = NULL;
  mqs_rd r;
  MQLONG cc = MQCC_FAILED, rc;
  MQLONG broken = mqs_call(c, &b, c->reply_timeout_ms, &reply, &r, &cc, &rc);
  if (!broken) {
    int32_t nints = mqs_get_i32(&r);
    if (nints < 0 || nints > MAX_SELECTORS)
      r.bad = 1;
    for (int32_t i = 0; !r.bad && i < nints; i++) {
      MQLONG v = mqs_get_i32(&r);
      if (i < IntAttrCount && cc != MQCC_FAILED)
        pIntAttrs[i] = v;
    }
    size_t n;
    const unsigned char *chars = mqs_get_bytes(&r, &n);
    if (r.bad) {
      mqs_conn_break(c);
      broken = MQRC_CONNECTION_BROKEN;
    } else if (cc != MQCC_FAILED && chars && n) {
      memcpy(pCharAttrs, chars, n < (size_t)CharAttrLength ? n : (size_t)CharAttrLength);
    }
  }
  free(reply);
  mqs_conn_leave(c);
  if (broken)
    mqs_set(pCompCode, pReason, MQCC_FAILED, broken);
  else
    mqs_set(pCompCode, pReason, cc, rc);
}
