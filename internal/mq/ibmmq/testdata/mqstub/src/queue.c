/*
 * queue.c -- the message list of a queue, MQOPEN and MQCLOSE.
 *
 * A queue is a list ordered by priority (high first) then arrival. Pending
 * messages of a unit of work stay in that list with a state flag, so a
 * backed-out get reappears exactly where it was and browse cursors, which
 * are (priority, arrival) positions rather than pointers, survive removals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"


/* ---- message list --------------------------------------------------- */

void mqs_msg_insert(mqs_queue *q, mqs_msg *m)
{
  mqs_msg *after = q->tail;
  while (after && after->prio < m->prio)
    after = after->prev;
  m->q = q;
  m->prev = after;
  m->next = after ? after->next : q->head;
  if (m->next)
    m->next->prev = m;
  else
    q->tail = m;
  if (after)
    after->next = m;
  else
    q->head = m;
}

void mqs_msg_unlink(mqs_msg *m)
{
  mqs_queue *q = m->q;
  if (m->prev)
    m->prev->next = m->next;
  else
    q->head = m->next;
  if (m->next)
    m->next->prev = m->prev;
  else
    q->tail = m->prev;
  m->prev = m->next = NULL;
}

void mqs_msg_free(mqs_msg *m)
{
  mqs_props_free(m->props);
  free(m->data);
  free(m);
}

void mqs_msg_make_visible(mqs_msg *m)
{
  m->state = MQS_VISIBLE;
  pthread_cond_broadcast(&m->q->avail);
}

static mqs_msg *msg_clone(const mqs_msg *m)
{
  mqs_msg *d = malloc(sizeof *d);
  unsigned char *data = malloc(m->len ? (size_t)m->len : 1);
  if (!d || !data) {
    free(d);
    free(data);
    return NULL;
  }
  *d = *m;
  if (m->len)
    memcpy(data, m->data, (size_t)m->len);
  d->data = data;
  d->props = mqs_props_copy(m->props);
  d->prev = d->next = d->uow_next = NULL;
  d->owner = NULL;
  d->fault = MQS_PUT_NORMAL;
  return d;
}

void mqs_msg_deliver(mqs_msg *m)
{
  mqs_queue *q = m->q;
  int fault = m->fault;
  m->fault = MQS_PUT_NORMAL;
  if (fault == MQS_PUT_DROP) {
    mqs_msg_unlink(m);
    q->depth--;
    mqs_msg_free(m);
    return;
  }
  mqs_msg_make_visible(m);
  mqs_msg *d = fault == MQS_PUT_DUP ? msg_clone(m) : NULL;
  if (d) {                      /* the copy is not held to MAXDEPTH */
    d->seq = ++q->nextseq;
    mqs_msg_insert(q, d);
    q->depth++;
    mqs_msg_make_visible(d);
  }
}

/* ---- MQOPEN / MQCLOSE ---------------------------------------------- */

#define MQS_INPUT_OPTS (MQOO_INPUT_AS_Q_DEF | MQOO_INPUT_SHARED | MQOO_INPUT_EXCLUSIVE)
#define MQS_ACCESS_OPTS (MQS_INPUT_OPTS | MQOO_BROWSE | MQOO_OUTPUT | MQOO_INQUIRE | MQOO_SET)

/* Resolve an object descriptor and open it; shared by MQOPEN and MQPUT1. */
MQLONG mqs_open_object(mqs_conn *c, MQOD *od, MQLONG opts, mqs_hobj **out)
{
  if (!mqs_strucid_ok(od, MQOD_STRUC_ID) || od->Version < MQOD_VERSION_1 ||
      od->Version > MQOD_CURRENT_VERSION)
    return MQRC_OD_ERROR;
  if (od->ObjectType == MQOT_TOPIC)
    return MQRC_FUNCTION_NOT_SUPPORTED;
  if (od->ObjectType != MQOT_Q && od->ObjectType != MQOT_Q_MGR)
    return MQRC_OBJECT_TYPE_ERROR;
  if (!(opts & MQS_ACCESS_OPTS) || mqs_popcount(opts & MQS_INPUT_OPTS) > 1)
    return MQRC_OPTIONS_ERROR;

  char name[MQ_Q_NAME_LENGTH + 1], qmname[MQ_Q_MGR_NAME_LENGTH + 1];
  mqs_fixed_to_c(name, sizeof name, od->ObjectName, MQ_OBJECT_NAME_LENGTH);
  mqs_fixed_to_c(qmname, sizeof qmname, od->ObjectQMgrName, MQ_Q_MGR_NAME_LENGTH);
  if (qmname[0] && strcmp(qmname, c->qm->name) != 0)
    return MQRC_UNKNOWN_REMOTE_Q_MGR;   /* no channels to other queue managers */

  mqs_queue *q = NULL;
  if (od->ObjectType == MQOT_Q_MGR) {
    if (opts & (MQS_INPUT_OPTS | MQOO_BROWSE | MQOO_OUTPUT))
      return MQRC_OPTION_NOT_VALID_FOR_TYPE;
    if (name[0] && strcmp(name, c->qm->name) != 0)
      return MQRC_UNKNOWN_OBJECT_NAME;
  } else {
    if (!name[0] || !(q = mqs_queue_find(c->qm, name)))
      return MQRC_UNKNOWN_OBJECT_NAME;
    int input = (opts & MQS_INPUT_OPTS) != 0;
    int excl = (opts & MQOO_INPUT_EXCLUSIVE) != 0;  /* DEFSOPT is SHARED */
    if (input && (q->excl > 0 || (excl && q->ipprocs > 0)))
      return MQRC_OBJECT_IN_USE;
  }

  mqs_hobj *o = calloc(1, sizeof *o);
  if (!o)
    return MQRC_STORAGE_NOT_AVAILABLE;
  o->id = c->next_hobj++;
  o->options = opts;
  o->objtype = od->ObjectType;
  o->q = q;
  if (q) {
    o->input = (opts & MQS_INPUT_OPTS) != 0;
    o->exclusive = (opts & MQOO_INPUT_EXCLUSIVE) != 0;
    q->ipprocs += o->input;
    q->excl += o->exclusive;
    q->opprocs += (opts & MQOO_OUTPUT) != 0;
  }
  o->next = c->objs;
  c->objs = o;

  if (od->Version >= MQOD_VERSION_3) {
    mqs_c_to_fixed(od->ResolvedQName, MQ_Q_NAME_LENGTH, q ? q->name : "");
    mqs_c_to_fixed(od->ResolvedQMgrName, MQ_Q_MGR_NAME_LENGTH, c->qm->name);
  }
  if (od->Version >= MQOD_VERSION_4) {
    od->ResolvedType = od->ObjectType;
    od->ResObjectString.VSLength = 0;
  }
  *out = o;
  return MQRC_NONE;
}

MQS_EXPORT void MQOPEN(MQHCONN Hconn, PMQVOID pObjDesc, MQLONG Options, PMQHOBJ pHobj,
                       PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason);
  if (c) {
    mqs_hobj *o = NULL;
    MQLONG rc = pHobj ? mqs_open_object(c, pObjDesc, Options, &o) : MQRC_HOBJ_ERROR;
    if (pHobj)
      *pHobj = rc ? MQHO_UNUSABLE_HOBJ : o->id;
    mqs_set(pCompCode, pReason, rc ? MQCC_FAILED : MQCC_OK, rc);
  }
  mqs_unlock();
}

MQS_EXPORT void MQCLOSE(MQHCONN Hconn, PMQHOBJ pHobj, MQLONG Options,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason);
  if (c) {
    mqs_hobj *o = pHobj ? mqs_hobj_find(c, *pHobj) : NULL;
    if (!o) {
      mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_HOBJ_ERROR);
    } else if (Options & ~(MQCO_QUIESCE)) {
      /* DELETE/PURGE apply to dynamic queues, KEEP/REMOVE_SUB to topics. */
      mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_OPTION_NOT_VALID_FOR_TYPE);
    } else {
      mqs_hobj_close(c, o);
      *pHobj = MQHO_UNUSABLE_HOBJ;
      mqs_set(pCompCode, pReason, MQCC_OK, MQRC_NONE);
    }
  }
  mqs_unlock();
}
