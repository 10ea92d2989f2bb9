/*
 * set.c -- MQSET, marshalled to the server: the selectors, the IntAttrCount
 * integers and the CharAttrLength characters the caller gives. The server
 * checks the selectors and values against the queue (PROTOCOL.md, SET).
 */
#include <stdlib.h>

#include "internal.h"

#define MAX_SELECTORS 256

MQS_EXPORT void MQSET(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount, PMQLONG pSelectors,
                      MQLONG IntAttrCount, PMQLONG pIntAttrs, MQLONG CharAttrLength,
                      PMQCHAR pCharAttrs, PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason, 0);
  if (!c)
    return;
  MQLONG bad = MQRC_NONE;
  if (SelectorCount < 0)
    bad = MQRC_SELECTOR_COUNT_ERROR;
  else if (SelectorCount > MAX_SELECTORS)
    bad = MQRC_SELECTOR_LIMIT_EXCEEDED;
  else if (SelectorCount > 0 && !pSelectors)
    bad = MQRC_SELECTOR_ERROR;
  else if (IntAttrCount < 0)
    bad = MQRC_INT_ATTR_COUNT_ERROR;
  else if (IntAttrCount > 0 && !pIntAttrs)
    bad = MQRC_INT_ATTRS_ARRAY_ERROR;
  else if (CharAttrLength < 0)
    bad = MQRC_CHAR_ATTR_LENGTH_ERROR;
  else if (CharAttrLength > 0 && !pCharAttrs)
    bad = MQRC_CHAR_ATTRS_ERROR;
  if (bad) {
    mqs_conn_leave(c);
    mqs_set(pCompCode, pReason, MQCC_FAILED, bad);
    return;
  }
  mqs_buf b;
  mqs_buf_init(&b, MQS_OP_SET);
  mqs_put_i32(&b, Hobj);
  mqs_put_i32(&b, SelectorCount);
  for (MQLONG i = 0; i < SelectorCount; i++)
    mqs_put_i32(&b, pSelectors[i]);
  mqs_put_i32(&b, IntAttrCount);
  for (MQLONG i = 0; i < IntAttrCount; i++)
    mqs_put_i32(&b, pIntAttrs[i]);
  mqs_put_i32(&b, CharAttrLength);
  mqs_put_bytes(&b, pCharAttrs, (size_t)CharAttrLength);
  unsigned char *reply = NULL;
  mqs_rd r;
  MQLONG cc = MQCC_FAILED, rc = MQRC_NONE;
  MQLONG failed = mqs_call(c, &b, c->reply_timeout_ms, &reply, &r, &cc, &rc);
  free(reply);
  mqs_conn_leave(c);
  if (failed)
    mqs_set(pCompCode, pReason, MQCC_FAILED, failed);
  else
    mqs_set(pCompCode, pReason, cc, rc);
}
