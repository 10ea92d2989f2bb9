/*
 * get.c -- MQGET: selection by MsgId/CorrelId, priority order, expiry,
 * waiting (MQGMO_WAIT), browse cursors, truncation, properties into a
 * message handle, and syncpoint.
 */
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- MQGET ---------------------------------------------------------- */

#define MQS_BROWSE_OPTS (MQGMO_BROWSE_FIRST | MQGMO_BROWSE_NEXT | MQGMO_BROWSE_MSG_UNDER_CURSOR)
#define MQS_CURSOR_OPTS (MQS_BROWSE_OPTS | MQGMO_MSG_UNDER_CURSOR)
#define MQS_PROP_OPTS   (MQGMO_PROPERTIES_IN_HANDLE | MQGMO_NO_PROPERTIES | \
                         MQGMO_PROPERTIES_FORCE_MQRFH2 | MQGMO_PROPERTIES_COMPATIBILITY)
#define MQS_UNSUPPORTED_GMO (MQGMO_LOCK | MQGMO_UNLOCK | MQGMO_MARK_BROWSE_HANDLE | \
                             MQGMO_MARK_BROWSE_CO_OP | MQGMO_UNMARK_BROWSE_CO_OP | \
                             MQGMO_UNMARK_BROWSE_HANDLE | MQGMO_UNMARKED_BROWSE_MSG | \
                             MQGMO_SET_SIGNAL)

static int msg_matches(const mqs_msg *m, const MQMD *md, MQLONG match)
{
  /* A null identifier matches anything, as on a real queue manager. */
  if ((match & MQMO_MATCH_MSG_ID) && !mqs_is_none(md->MsgId, MQ_MSG_ID_LENGTH) &&
      memcmp(m->md.MsgId, md->MsgId, MQ_MSG_ID_LENGTH) != 0)
    return 0;
  if ((match & MQMO_MATCH_CORREL_ID) && !mqs_is_none(md->CorrelId, MQ_CORREL_ID_LENGTH) &&
      memcmp(m->md.CorrelId, md->CorrelId, MQ_CORREL_ID_LENGTH) != 0)
    return 0;
  if ((match & MQMO_MATCH_GROUP_ID) && md->Version >= MQMD_VERSION_2 &&
      !mqs_is_none(md->GroupId, MQ_GROUP_ID_LENGTH) &&
      memcmp(m->md.GroupId, md->GroupId, MQ_GROUP_ID_LENGTH) != 0)
    return 0;
  if ((match & MQMO_MATCH_MSG_SEQ_NUMBER) && md->Version >= MQMD_VERSION_2 &&
      m->md.MsgSeqNumber != md->MsgSeqNumber)
    return 0;
  return 1;
}

/* Is m strictly behind the browse position (prio, seq) in queue order? */
static int after_pos(const mqs_msg *m, MQLONG prio, uint64_t seq)
{
  return m->prio < prio || (m->prio == prio && m->seq > seq);
}

/* First available message that matches, optionally only beyond a browse
 * position. Expired messages met on the way are discarded, which is when
 * a real queue manager removes them too. */
static mqs_msg *find_msg(mqs_queue *q, const MQMD *md, MQLONG match,
                         const mqs_hobj *o, int beyond_cursor)
{
  int64_t now = mqs_now_ms();
  mqs_msg *next;
  for (mqs_msg *m = q->head; m; m = next) {
    next = m->next;
    if (m->state != MQS_VISIBLE)
      continue;
    if (m->expires_ms && now >= m->expires_ms) {
      mqs_msg_unlink(m);
      q->depth--;
      mqs_msg_free(m);
      continue;
    }
    if (beyond_cursor && o->browse_set && !after_pos(m, o->browse_prio, o->browse_seq))
      continue;
    if (msg_matches(m, md, match))
      return m;
  }
  return NULL;
}

static mqs_msg *msg_under_cursor(mqs_queue *q, const mqs_hobj *o)
{
  if (!o->browse_set)
    return NULL;
  int64_t now = mqs_now_ms();
  for (mqs_msg *m = q->head; m; m = m->next)
    if (m->prio == o->browse_prio && m->seq == o->browse_seq)
      return (m->state == MQS_VISIBLE && !(m->expires_ms && now >= m->expires_ms)) ? m : NULL;
  return NULL;
}

static MQLONG check_gmo(const mqs_hobj *o, const MQGMO *gmo, mqs_hmsg **hmsg)
{
  MQLONG g = gmo->Options;
  if (g & MQS_UNSUPPORTED_GMO)
    return MQRC_FUNCTION_NOT_SUPPORTED;
  if (mqs_popcount(g & (MQGMO_SYNCPOINT | MQGMO_NO_SYNCPOINT | MQGMO_SYNCPOINT_IF_PERSISTENT)) > 1)
    return MQRC_OPTIONS_ERROR;
  if (mqs_popcount(g & MQS_CURSOR_OPTS) > 1)
    return MQRC_OPTIONS_ERROR;
  if ((g & MQS_BROWSE_OPTS) && (g & (MQGMO_SYNCPOINT | MQGMO_SYNCPOINT_IF_PERSISTENT)))
    return MQRC_OPTIONS_ERROR;
  if (mqs_popcount(g & MQS_PROP_OPTS) > 1)
    return MQRC_OPTIONS_ERROR;
  if ((g & MQGMO_WAIT) && gmo->WaitInterval < MQWI_UNLIMITED)
    return MQRC_WAIT_INTERVAL_ERROR;
  if (gmo->Version >= MQGMO_VERSION_2 &&
      (gmo->MatchOptions & ~(MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID | MQMO_MATCH_GROUP_ID |
                             MQMO_MATCH_MSG_SEQ_NUMBER)))
    return MQRC_MATCH_OPTIONS_ERROR;
  if (g & MQS_BROWSE_OPTS) {
    if (!(o->options & MQOO_BROWSE))
      return MQRC_NOT_OPEN_FOR_BROWSE;
  } else if (!o->input) {
    return MQRC_NOT_OPEN_FOR_INPUT;
  }
  *hmsg = NULL;
  if (gmo->Version >= MQGMO_VERSION_4 && gmo->MsgHandle != MQHM_NONE &&
      !(g & MQGMO_NO_PROPERTIES)) {
    if (!(*hmsg = mqs_hmsg_find(gmo->MsgHandle)))
      return MQRC_HMSG_ERROR;
  }
  return MQRC_NONE;
}

/* Copy the stored descriptor out, keeping the caller's StrucId/Version. */
static void md_out(MQMD *md, const mqs_msg *m)
{
  MQLONG ver = md->Version;
  size_t n = ver >= MQMD_VERSION_2 ? sizeof(MQMD) : (size_t)MQMD_LENGTH_1;
  memcpy((char *)md + 8, (const char *)&m->md + 8, n - 8);
  if (m->expires_ms) {
    int64_t left = m->expires_ms - mqs_now_ms();
    md->Expiry = left > 0 ? (MQLONG)((left + 99) / 100) : 1;
  }
}

MQS_EXPORT void MQGET(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pGetMsgOpts,
                      MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pDataLength,
                      PMQLONG pCompCode, PMQLONG pReason)
{
  MQMD *md = pMsgDesc;
  MQGMO *gmo = pGetMsgOpts;
  mqs_lock();
  mqs_faults_poll();
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason);
  if (!c) {
    mqs_unlock();
    return;
  }
  if (pDataLength)
    *pDataLength = 0;

  MQLONG rc = MQRC_NONE;
  mqs_hobj *o = mqs_hobj_find(c, Hobj);
  mqs_hmsg *hmsg = NULL;
  if (mqs_fault_take(MQS_FAULT_GET, &rc))
    ;                                         /* injected: nothing is got */
  else if (!o)
    rc = MQRC_HOBJ_ERROR;
  else if (!o->q)
    rc = MQRC_NOT_OPEN_FOR_INPUT;
  else if (!mqs_strucid_ok(md, MQMD_STRUC_ID) || md->Version < MQMD_VERSION_1 ||
           md->Version > MQMD_CURRENT_VERSION)
    rc = MQRC_MD_ERROR;
  else if (!mqs_strucid_ok(gmo, MQGMO_STRUC_ID) || gmo->Version < MQGMO_VERSION_1 ||
           gmo->Version > MQGMO_CURRENT_VERSION)
    rc = MQRC_GMO_ERROR;
  else if (BufferLength < 0)
    rc = MQRC_BUFFER_LENGTH_ERROR;
  else if (BufferLength > 0 && !pBuffer)
    rc = MQRC_BUFFER_ERROR;
  else if (!pDataLength)
    rc = MQRC_DATA_LENGTH_ERROR;
  else
    rc = check_gmo(o, gmo, &hmsg);
  if (rc) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, rc);
    mqs_unlock();
    return;
  }

  MQLONG g = gmo->Options;
  MQLONG match = gmo->Version >= MQGMO_VERSION_2 ? gmo->MatchOptions
                                                 : (MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID);
  mqs_queue *q = o->q;
  int browse = (g & MQS_BROWSE_OPTS) != 0;
  int under = (g & (MQGMO_BROWSE_MSG_UNDER_CURSOR | MQGMO_MSG_UNDER_CURSOR)) != 0;
  int waitable = (g & MQGMO_WAIT) && !under;
  int64_t deadline = (waitable && gmo->WaitInterval >= 0) ? mqs_now_ms() + gmo->WaitInterval : -1;

  if (g & MQGMO_BROWSE_FIRST)
    o->browse_set = 0;
  mqs_msg *m;
  for (;;) {
    m = under ? msg_under_cursor(q, o) : find_msg(q, md, match, o, (g & MQGMO_BROWSE_NEXT) != 0);
    if (m || !waitable)
      break;
    int64_t slice = MQS_WAIT_SLICE_MS;
    if (deadline >= 0) {
      int64_t left = deadline - mqs_now_ms();
      if (left <= 0)
        break;
      if (left < slice)
        slice = left;
    }
    struct timespec ts;
    mqs_deadline(&ts, slice);
    mqs_conn_set_busy(c, 1);
    pthread_cond_timedwait(&q->avail, &g_mu, &ts);
    mqs_conn_set_busy(c, 0);
    mqs_faults_poll();         /* a waiter must notice MQSTUB_BREAK by itself */
    if (c->broken) {           /* breaking closed o: do not touch it */
      mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_CONNECTION_BROKEN);
      mqs_unlock();
      return;
    }
  }
  if (!m) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, under ? MQRC_NO_MSG_UNDER_CURSOR : MQRC_NO_MSG_AVAILABLE);
    mqs_unlock();
    return;
  }

  md_out(md, m);
  MQLONG full = m->len;
  *pDataLength = full;
  MQLONG n = full < BufferLength ? full : BufferLength;
  if (n > 0)
    memcpy(pBuffer, m->data, (size_t)n);
  mqs_c_to_fixed(gmo->ResolvedQName, MQ_Q_NAME_LENGTH, q->name);
  if (gmo->Version >= MQGMO_VERSION_2) {
    gmo->GroupStatus = MQGS_NOT_IN_GROUP;
    gmo->SegmentStatus = MQSS_NOT_A_SEGMENT;
    gmo->Segmentation = MQSEG_INHIBITED;
  }
  if (gmo->Version >= MQGMO_VERSION_3) {
    memset(gmo->MsgToken, 0, sizeof gmo->MsgToken);
    for (int i = 0; i < 8; i++)
      gmo->MsgToken[8 + i] = (MQBYTE)(m->seq >> (8 * (7 - i)));
    gmo->ReturnedLength = n;
  }
  /* A failed truncation leaves a browse cursor where it was (BROWSE_FIRST
   * already put it before the first message), as IBM documents for 2080. */
  if (full > BufferLength && !(g & MQGMO_ACCEPT_TRUNCATED_MSG)) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_TRUNCATED_MSG_FAILED);
    mqs_unlock();
    return;
  }
  if (browse) {
    o->browse_set = 1;
    o->browse_prio = m->prio;
    o->browse_seq = m->seq;
  }
  if (hmsg) {
    mqs_props_free(hmsg->props);
    hmsg->props = mqs_props_copy(m->props);
    hmsg->cursor = -1;
  }
  if (!browse) {
    int sync = (g & MQGMO_SYNCPOINT) ||
               ((g & MQGMO_SYNCPOINT_IF_PERSISTENT) && m->md.Persistence == MQPER_PERSISTENT);
    q->depth--;
    if (sync) {
      m->state = MQS_GET_PENDING;
      mqs_uow_add(c, m);
    } else {
      mqs_msg_unlink(m);
      mqs_msg_free(m);
    }
  }
  if (full > BufferLength)        /* m may be freed by now */
    mqs_set(pCompCode, pReason, MQCC_WARNING, MQRC_TRUNCATED_MSG_ACCEPTED);
  else
    mqs_set(pCompCode, pReason, MQCC_OK, MQRC_NONE);
  mqs_unlock();
}
