/*
 * put.c -- MQPUT and MQPUT1: validation, the stored descriptor (identifiers,
 * context, resolved defaults), properties from message handles, and
 * syncpoint.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- MQPUT ---------------------------------------------------------- */

#define MQS_CONTEXT_OPTS (MQPMO_NO_CONTEXT | MQPMO_DEFAULT_CONTEXT | MQPMO_PASS_IDENTITY_CONTEXT | \
                          MQPMO_PASS_ALL_CONTEXT | MQPMO_SET_IDENTITY_CONTEXT | MQPMO_SET_ALL_CONTEXT)

/* Message properties for a put: OriginalMsgHandle's, then NewMsgHandle's
 * on top (same name replaces). */
static MQLONG put_props(const MQPMO *pmo, mqs_prop **out)
{
  *out = NULL;
  if (pmo->Version < MQPMO_VERSION_3)
    return MQRC_NONE;
  MQHMSG hs[2] = { pmo->OriginalMsgHandle, pmo->NewMsgHandle };
  for (int i = 0; i < 2; i++) {
    if (hs[i] == MQHM_NONE)
      continue;
    mqs_hmsg *h = mqs_hmsg_find(hs[i]);
    if (!h) {
      mqs_props_free(*out);
      *out = NULL;
      return MQRC_HMSG_ERROR;
    }
    mqs_prop *add = mqs_props_copy(h->props);
    /* Drop names that the newer handle redefines, then append. */
    for (mqs_prop *a = add; a; a = a->next)
      for (mqs_prop **pp = out; *pp;) {
        if (strcmp((*pp)->name, a->name) == 0) {
          mqs_prop *dead = *pp;
          *pp = dead->next;
          dead->next = NULL;
          mqs_props_free(dead);
        } else {
          pp = &(*pp)->next;
        }
      }
    mqs_prop **tail = out;
    while (*tail)
      tail = &(*tail)->next;
    *tail = add;
  }
  return MQRC_NONE;
}

static void set_context(mqs_conn *c, MQLONG opts, const MQMD *in, MQMD *st)
{
  int set_ident = (opts & (MQPMO_SET_IDENTITY_CONTEXT | MQPMO_SET_ALL_CONTEXT)) != 0;
  int set_all = (opts & MQPMO_SET_ALL_CONTEXT) != 0;
  if (opts & MQPMO_NO_CONTEXT) {
    memset(st->UserIdentifier, ' ', sizeof st->UserIdentifier);
    memset(st->AccountingToken, 0, sizeof st->AccountingToken);
    memset(st->ApplIdentityData, ' ', sizeof st->ApplIdentityData);
    st->PutApplType = MQAT_NO_CONTEXT;
    memset(st->PutApplName, ' ', sizeof st->PutApplName);
    memset(st->PutDate, ' ', sizeof st->PutDate);
    memset(st->PutTime, ' ', sizeof st->PutTime);
    memset(st->ApplOriginData, ' ', sizeof st->ApplOriginData);
    return;
  }
  if (set_ident) {
    memcpy(st->UserIdentifier, in->UserIdentifier, sizeof st->UserIdentifier);
    memcpy(st->AccountingToken, in->AccountingToken, sizeof st->AccountingToken);
    memcpy(st->ApplIdentityData, in->ApplIdentityData, sizeof st->ApplIdentityData);
  } else {
    mqs_c_to_fixed(st->UserIdentifier, MQ_USER_ID_LENGTH, c->user);
    memset(st->AccountingToken, 0, sizeof st->AccountingToken);
    memcpy(st->AccountingToken, c->connid, sizeof c->connid);
    memset(st->ApplIdentityData, ' ', sizeof st->ApplIdentityData);
  }
  if (set_all) {
    st->PutApplType = in->PutApplType;
    memcpy(st->PutApplName, in->PutApplName, sizeof st->PutApplName);
    memcpy(st->PutDate, in->PutDate, sizeof st->PutDate);
    memcpy(st->PutTime, in->PutTime, sizeof st->PutTime);
    memcpy(st->ApplOriginData, in->ApplOriginData, sizeof st->ApplOriginData);
  } else {
    st->PutApplType = MQAT_UNIX;
    mqs_c_to_fixed(st->PutApplName, MQ_PUT_APPL_NAME_LENGTH, mqs_prog_name());
    mqs_put_date_time(st->PutDate, st->PutTime);
    memset(st->ApplOriginData, ' ', sizeof st->ApplOriginData);
  }
}

/* The body of MQPUT/MQPUT1 once the target queue is known. Returns the
 * reason code; *warn gets a warning reason for a successful put. */
static MQLONG put_message(mqs_conn *c, mqs_queue *q, MQMD *md, MQPMO *pmo,
                          MQLONG len, const void *buf, int fault, MQLONG *warn)
{
  *warn = MQRC_NONE;
  if (!mqs_strucid_ok(md, MQMD_STRUC_ID) || md->Version < MQMD_VERSION_1 ||
      md->Version > MQMD_CURRENT_VERSION)
    return MQRC_MD_ERROR;
  if (!mqs_strucid_ok(pmo, MQPMO_STRUC_ID) || pmo->Version < MQPMO_VERSION_1 ||
      pmo->Version > MQPMO_CURRENT_VERSION)
    return MQRC_PMO_ERROR;
  MQLONG o = pmo->Options;
  if ((o & MQPMO_SYNCPOINT) && (o & MQPMO_NO_SYNCPOINT))
    return MQRC_OPTIONS_ERROR;
  if (mqs_popcount(o & MQS_CONTEXT_OPTS) > 1)
    return MQRC_OPTIONS_ERROR;
  if (len < 0)
    return MQRC_BUFFER_LENGTH_ERROR;
  if (len > 0 && !buf)
    return MQRC_BUFFER_ERROR;
  if (md->MsgType < MQMT_SYSTEM_FIRST || md->MsgType > MQMT_APPL_LAST)
    return MQRC_MSG_TYPE_ERROR;
  if (md->MsgType == MQMT_REQUEST && (md->ReplyToQ[0] == ' ' || md->ReplyToQ[0] == '\0'))
    return MQRC_MISSING_REPLY_TO_Q;
  if (md->Priority < MQPRI_PRIORITY_AS_PUBLISHED)
    return MQRC_PRIORITY_ERROR;
  if (md->Persistence != MQPER_NOT_PERSISTENT && md->Persistence != MQPER_PERSISTENT &&
      md->Persistence != MQPER_PERSISTENCE_AS_Q_DEF)
    return MQRC_PERSISTENCE_ERROR;
  if (md->Expiry != MQEI_UNLIMITED && md->Expiry <= 0)
    return MQRC_EXPIRY_ERROR;
  if (len > mqs_queue_max_msgl(q))
    return MQRC_MSG_TOO_BIG_FOR_Q;
  if (q->depth >= mqs_queue_max_depth(q))
    return MQRC_Q_FULL;

  mqs_prop *props;
  MQLONG rc = put_props(pmo, &props);
  if (rc)
    return rc;
  mqs_msg *m = calloc(1, sizeof *m);
  void *data = malloc(len ? (size_t)len : 1);
  if (!m || !data) {
    free(m);
    free(data);
    mqs_props_free(props);
    return MQRC_STORAGE_NOT_AVAILABLE;
  }
  if (len)
    memcpy(data, buf, (size_t)len);
  m->data = data;
  m->len = len;
  m->props = props;

  /* Build the stored descriptor: the caller's fields, resolved defaults,
   * fresh identifiers and context. */
  MQMD *st = &m->md;
  memcpy(st, md, md->Version >= MQMD_VERSION_2 ? sizeof(MQMD) : (size_t)MQMD_LENGTH_1);
  st->Version = MQMD_VERSION_2;
  if (md->Version < MQMD_VERSION_2) {
    memset(st->GroupId, 0, sizeof st->GroupId);
    st->MsgSeqNumber = 1;
    st->Offset = 0;
    st->MsgFlags = MQMF_NONE;
    st->OriginalLength = MQOL_UNDEFINED;
  }
  if (st->Priority < 0)
    st->Priority = 0;                     /* DEFPRTY(0) */
  m->prio = st->Priority;
  if (m->prio > MQS_MAX_PRIORITY) {
    m->prio = MQS_MAX_PRIORITY;           /* stored value is kept, as IBM does */
    *warn = MQRC_PRIORITY_EXCEEDS_MAXIMUM;
  }
  if (st->Persistence == MQPER_PERSISTENCE_AS_Q_DEF)
    st->Persistence = MQPER_NOT_PERSISTENT; /* DEFPSIST(NO) */
  if (st->CodedCharSetId == MQCCSI_Q_MGR || st->CodedCharSetId == MQCCSI_INHERIT ||
      st->CodedCharSetId == MQCCSI_APPL)
    st->CodedCharSetId = MQS_QMGR_CCSID;
  if ((o & MQPMO_NEW_MSG_ID) || mqs_is_none(md->MsgId, MQ_MSG_ID_LENGTH))
    mqs_new_id(st->MsgId, c->qm->name);
  if (o & MQPMO_NEW_CORREL_ID)
    mqs_new_id(st->CorrelId, c->qm->name);
  if (st->ReplyToQ[0] != ' ' && st->ReplyToQ[0] != '\0' &&
      (st->ReplyToQMgr[0] == ' ' || st->ReplyToQMgr[0] == '\0'))
    mqs_c_to_fixed(st->ReplyToQMgr, MQ_Q_MGR_NAME_LENGTH, c->qm->name);
  set_context(c, o, md, st);
  st->BackoutCount = 0;
  if (st->Expiry > 0)
    m->expires_ms = mqs_now_ms() + (int64_t)st->Expiry * 100;

  m->seq = ++q->nextseq;
  m->fault = fault;             /* applied by mqs_msg_deliver, at MQCMIT under syncpoint */
  mqs_msg_insert(q, m);
  q->depth++;
  if (o & MQPMO_SYNCPOINT) {
    m->state = MQS_PUT_PENDING;
    mqs_uow_add(c, m);
  }

  /* Output fields of MQMD and MQPMO. */
  memcpy(md->MsgId, st->MsgId, sizeof md->MsgId);
  memcpy(md->CorrelId, st->CorrelId, sizeof md->CorrelId);
  memcpy(md->ReplyToQMgr, st->ReplyToQMgr, sizeof md->ReplyToQMgr);
  memcpy(md->UserIdentifier, st->UserIdentifier, sizeof md->UserIdentifier);
  memcpy(md->AccountingToken, st->AccountingToken, sizeof md->AccountingToken);
  memcpy(md->ApplIdentityData, st->ApplIdentityData, sizeof md->ApplIdentityData);
  md->PutApplType = st->PutApplType;
  memcpy(md->PutApplName, st->PutApplName, sizeof md->PutApplName);
  memcpy(md->PutDate, st->PutDate, sizeof md->PutDate);
  memcpy(md->PutTime, st->PutTime, sizeof md->PutTime);
  memcpy(md->ApplOriginData, st->ApplOriginData, sizeof md->ApplOriginData);
  mqs_c_to_fixed(pmo->ResolvedQName, MQ_Q_NAME_LENGTH, q->name);
  mqs_c_to_fixed(pmo->ResolvedQMgrName, MQ_Q_MGR_NAME_LENGTH, c->qm->name);
  if (!(o & MQPMO_SYNCPOINT))
    mqs_msg_deliver(m);         /* last: a dropped message is freed */
  return MQRC_NONE;
}

static void put_result(PMQLONG cc, PMQLONG rc, MQLONG reason, MQLONG warn)
{
  if (reason)
    mqs_set(cc, rc, MQCC_FAILED, reason);
  else if (warn)
    mqs_set(cc, rc, MQCC_WARNING, warn);
  else
    mqs_set(cc, rc, MQCC_OK, MQRC_NONE);
}

MQS_EXPORT void MQPUT(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
                      MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason);
  if (c) {
    MQLONG rc = MQRC_NONE, warn = MQRC_NONE;
    mqs_hobj *o = mqs_hobj_find(c, Hobj);
    int fault = mqs_fault_put_effect();        /* counted like MQSTUB_FAIL_PUT */
    if (mqs_fault_take(MQS_FAULT_PUT, &rc))
      ;                                       /* injected: nothing is put */
    else if (!o)
      rc = MQRC_HOBJ_ERROR;
    else if (!o->q || !(o->options & MQOO_OUTPUT))
      rc = MQRC_NOT_OPEN_FOR_OUTPUT;
    else if (!pMsgDesc)
      rc = MQRC_MD_ERROR;
    else if (!pPutMsgOpts)
      rc = MQRC_PMO_ERROR;
    else
      rc = put_message(c, o->q, pMsgDesc, pPutMsgOpts, BufferLength, pBuffer, fault, &warn);
    put_result(pCompCode, pReason, rc, warn);
  }
  mqs_unlock();
}

MQS_EXPORT void MQPUT1(MQHCONN Hconn, PMQVOID pObjDesc, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
                       MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason);
  if (c) {
    MQLONG rc = MQRC_NONE, warn = MQRC_NONE;
    mqs_hobj *o = NULL;
    int fault = mqs_fault_put_effect();
    if (mqs_fault_take(MQS_FAULT_PUT, &rc))
      ;
    else if (!pObjDesc)
      rc = MQRC_OD_ERROR;
    else if (!pMsgDesc)
      rc = MQRC_MD_ERROR;
    else if (!pPutMsgOpts)
      rc = MQRC_PMO_ERROR;
    else if ((rc = mqs_open_object(c, pObjDesc, MQOO_OUTPUT, &o)) == MQRC_NONE) {
      if (!o->q)
        rc = MQRC_OBJECT_TYPE_ERROR;
      else
        rc = put_message(c, o->q, pMsgDesc, pPutMsgOpts, BufferLength, pBuffer, fault, &warn);
      mqs_hobj_close(c, o);
    } else if (rc == MQRC_OPTION_NOT_VALID_FOR_TYPE) {
      rc = MQRC_OBJECT_TYPE_ERROR;            /* MQPUT1 to the queue manager object */
    }
    put_result(pCompCode, pReason, rc, warn);
  }
  mqs_unlock();
}
