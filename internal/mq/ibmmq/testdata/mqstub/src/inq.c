/*
 * inq.c -- MQINQ on a local queue or on the queue manager object.
 *
 * Integer attributes fill IntAttrs in selector order, character attributes
 * are concatenated into CharAttrs with each attribute's fixed MQ length
 * (the caller -- e.g. mq-golang's Inq -- splits the buffer by those
 * lengths). The attributes are those of a default DEFINE QLOCAL plus live
 * values (depth, open counts, limits after MQSTUB_* overrides).
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static MQLONG qmgr_max_msgl(void)
{
  long v = mqs_env_long("MQSTUB_MAX_MSG_LENGTH", -1);
  return v > MQS_MAX_MSGL ? (MQLONG)v : MQS_MAX_MSGL;
}

/* Returns 1 and the value when the selector is an integer attribute of the
 * object (q == NULL: the queue manager). */
static int int_attr(const mqs_conn *c, mqs_queue *q, MQLONG sel, MQLONG *v)
{
  if (!q) {
    switch (sel) {
    case MQIA_COMMAND_LEVEL:        *v = MQS_COMMAND_LEVEL; return 1;
    case MQIA_PLATFORM:             *v = MQPL_UNIX; return 1;
    case MQIA_CODED_CHAR_SET_ID:    *v = MQS_QMGR_CCSID; return 1;
    case MQIA_MAX_MSG_LENGTH:       *v = qmgr_max_msgl(); return 1;
    case MQIA_MAX_PRIORITY:         *v = MQS_MAX_PRIORITY; return 1;
    case MQIA_SYNCPOINT:            *v = MQSP_AVAILABLE; return 1;
    case MQIA_MAX_HANDLES:          *v = 256; return 1;
    case MQIA_MAX_UNCOMMITTED_MSGS: *v = 10000; return 1;
    case MQIA_DIST_LISTS:           *v = MQDL_SUPPORTED; return 1;
    case MQIA_TRIGGER_INTERVAL:     *v = 999999999; return 1;
    default:                        return 0;
    }
  }
  (void)c;
  switch (sel) {
  case MQIA_CURRENT_Q_DEPTH:        *v = q->depth; return 1;
  case MQIA_MAX_Q_DEPTH:            *v = mqs_queue_max_depth(q); return 1;
  case MQIA_OPEN_INPUT_COUNT:       *v = q->ipprocs; return 1;
  case MQIA_OPEN_OUTPUT_COUNT:      *v = q->opprocs; return 1;
  case MQIA_MAX_MSG_LENGTH:         *v = mqs_queue_max_msgl(q); return 1;
  case MQIA_Q_TYPE:                 *v = MQQT_LOCAL; return 1;
  case MQIA_DEFINITION_TYPE:        *v = MQQDT_PREDEFINED; return 1;
  case MQIA_DEF_PERSISTENCE:        *v = MQPER_NOT_PERSISTENT; return 1;
  case MQIA_DEF_PRIORITY:           *v = 0; return 1;
  case MQIA_DEF_INPUT_OPEN_OPTION:  *v = MQOO_INPUT_SHARED; return 1;
  case MQIA_DEF_BIND:               *v = MQBND_BIND_ON_OPEN; return 1;
  case MQIA_INHIBIT_GET:            *v = MQQA_GET_ALLOWED; return 1;
  case MQIA_INHIBIT_PUT:            *v = MQQA_PUT_ALLOWED; return 1;
  case MQIA_SHAREABILITY:           *v = MQQA_SHAREABLE; return 1;
  case MQIA_MSG_DELIVERY_SEQUENCE:  *v = MQMDS_PRIORITY; return 1;
  case MQIA_BACKOUT_THRESHOLD:      *v = 0; return 1;
  case MQIA_HARDEN_GET_BACKOUT:     *v = MQQA_BACKOUT_HARDENED; return 1;
  case MQIA_USAGE:                  *v = MQUS_NORMAL; return 1;
  case MQIA_TRIGGER_CONTROL:        *v = MQTC_OFF; return 1;
  case MQIA_TRIGGER_TYPE:           *v = MQTT_FIRST; return 1;
  case MQIA_TRIGGER_DEPTH:          *v = 1; return 1;
  case MQIA_TRIGGER_MSG_PRIORITY:   *v = 0; return 1;
  case MQIA_RETENTION_INTERVAL:     *v = 999999999; return 1;
  case MQIA_Q_DEPTH_HIGH_LIMIT:     *v = 80; return 1;
  case MQIA_Q_DEPTH_LOW_LIMIT:      *v = 20; return 1;
  case MQIA_SCOPE:                  *v = MQSCO_Q_MGR; return 1;
  case MQIA_PROPERTY_CONTROL:       *v = MQPROP_COMPATIBILITY; return 1;
  default:                          return 0;
  }
}

/* Returns the attribute's fixed length (0: not an attribute of the object)
 * and its value as a C string. */
static MQLONG char_attr(const mqs_conn *c, const mqs_queue *q, MQLONG sel, char *val, size_t sz)
{
  const mqs_qmgr *qm = c->qm;
  val[0] = '\0';
  if (!q) {
    switch (sel) {
    case MQCA_Q_MGR_NAME:        snprintf(val, sz, "%s", qm->name); return MQ_Q_MGR_NAME_LENGTH;
    case MQCA_Q_MGR_IDENTIFIER:  snprintf(val, sz, "%s", qm->ident); return MQ_Q_MGR_IDENTIFIER_LENGTH;
    case MQCA_Q_MGR_DESC:        snprintf(val, sz, "mqprobe MQ stub"); return MQ_Q_MGR_DESC_LENGTH;
    case MQCA_DEAD_LETTER_Q_NAME: snprintf(val, sz, "%s", MQS_DLQ_NAME); return MQ_Q_NAME_LENGTH;
    case MQCA_COMMAND_INPUT_Q_NAME:
      snprintf(val, sz, "SYSTEM.ADMIN.COMMAND.QUEUE"); return MQ_Q_NAME_LENGTH;
    case MQCA_DEF_XMIT_Q_NAME:   return MQ_Q_NAME_LENGTH;
    case MQCA_VERSION:           snprintf(val, sz, "09040000"); return MQ_VERSION_LENGTH;
    default:                     return 0;
    }
  }
  switch (sel) {
  case MQCA_Q_NAME:            snprintf(val, sz, "%s", q->name); return MQ_Q_NAME_LENGTH;
  case MQCA_Q_DESC:            return MQ_Q_DESC_LENGTH;
  case MQCA_CREATION_DATE:
  case MQCA_ALTERATION_DATE:   snprintf(val, sz, "%.12s", q->crdate); return MQ_DATE_LENGTH;
  case MQCA_CREATION_TIME:
  case MQCA_ALTERATION_TIME:   snprintf(val, sz, "%.8s", q->crtime); return MQ_TIME_LENGTH;
  case MQCA_BACKOUT_REQ_Q_NAME:
  case MQCA_INITIATION_Q_NAME: return MQ_Q_NAME_LENGTH;
  case MQCA_PROCESS_NAME:      return MQ_PROCESS_NAME_LENGTH;
  case MQCA_TRIGGER_DATA:      return MQ_TRIGGER_DATA_LENGTH;
  case MQCA_CLUSTER_NAME:      return MQ_CLUSTER_NAME_LENGTH;
  case MQCA_CLUSTER_NAMELIST:  return MQ_NAMELIST_NAME_LENGTH;
  default:                     return 0;
  }
}

MQS_EXPORT void MQINQ(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount, PMQLONG pSelectors,
                      MQLONG IntAttrCount, PMQLONG pIntAttrs, MQLONG CharAttrLength,
                      PMQCHAR pCharAttrs, PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason);
  if (!c) {
    mqs_unlock();
    return;
  }
  mqs_hobj *o = mqs_hobj_find(c, Hobj);
  MQLONG rc = MQRC_NONE;
  if (!o)
    rc = MQRC_HOBJ_ERROR;
  else if (!(o->options & MQOO_INQUIRE))
    rc = MQRC_NOT_OPEN_FOR_INQUIRE;
  else if (SelectorCount < 0 || SelectorCount > 256)
    rc = MQRC_SELECTOR_COUNT_ERROR;
  else if (SelectorCount > 0 && !pSelectors)
    rc = MQRC_SELECTOR_ERROR;
  else if (IntAttrCount < 0)
    rc = MQRC_INT_ATTR_COUNT_ERROR;
  else if (IntAttrCount > 0 && !pIntAttrs)
    rc = MQRC_INT_ATTRS_ARRAY_ERROR;
  else if (CharAttrLength < 0)
    rc = MQRC_CHAR_ATTR_LENGTH_ERROR;
  else if (CharAttrLength > 0 && !pCharAttrs)
    rc = MQRC_CHAR_ATTRS_ERROR;

  /* Every selector must be valid before anything is returned. */
  char val[MQ_Q_MGR_IDENTIFIER_LENGTH + 64];
  for (MQLONG i = 0; !rc && i < SelectorCount; i++) {
    MQLONG v, s = pSelectors[i];
    if (s >= MQIA_FIRST && s <= MQIA_LAST) {
      if (!int_attr(c, o->q, s, &v))
        rc = MQRC_SELECTOR_ERROR;
    } else if (s >= MQCA_FIRST && s <= MQCA_LAST) {
      if (!char_attr(c, o->q, s, val, sizeof val))
        rc = MQRC_SELECTOR_ERROR;
    } else {
      rc = MQRC_SELECTOR_ERROR;
    }
  }
  if (rc) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, rc);
    mqs_unlock();
    return;
  }

  MQLONG ni = 0, nc = 0, warn = MQRC_NONE;
  for (MQLONG i = 0; i < SelectorCount; i++) {
    MQLONG s = pSelectors[i], v;
    if (s >= MQIA_FIRST && s <= MQIA_LAST) {
      int_attr(c, o->q, s, &v);
      if (ni < IntAttrCount)
        pIntAttrs[ni++] = v;
      else if (!warn)
        warn = MQRC_INT_ATTR_COUNT_TOO_SMALL;
    } else {
      MQLONG len = char_attr(c, o->q, s, val, sizeof val);
      if (nc + len <= CharAttrLength) {
        mqs_c_to_fixed(pCharAttrs + nc, (size_t)len, val);
        nc += len;
      } else {
        if (nc < CharAttrLength)          /* partial attribute, then stop */
          mqs_c_to_fixed(pCharAttrs + nc, (size_t)(CharAttrLength - nc), val);
        nc = CharAttrLength;
        if (!warn)
          warn = MQRC_CHAR_ATTRS_TOO_SHORT;
      }
    }
  }
  mqs_set(pCompCode, pReason, warn ? MQCC_WARNING : MQCC_OK, warn);
  mqs_unlock();
}
