/*
 * conn.c -- connections (MQCONN/MQCONNX/MQDISC), object-handle bookkeeping
 * and the per-connection unit of work (MQCMIT/MQBACK).
 */
#define _GNU_SOURCE
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
mqs_conn *g_conns;
static pthread_cond_t g_idle = PTHREAD_COND_INITIALIZER;  /* a busy connection became idle */
static MQHCONN next_hconn = 0x01000001;                    /* never reused: stale handles fail */

void mqs_lock(void) { pthread_mutex_lock(&g_mu); }
void mqs_unlock(void) { pthread_mutex_unlock(&g_mu); }

mqs_conn *mqs_conn_find(MQHCONN h)
{
  for (mqs_conn *c = g_conns; c; c = c->next)
    if (c->id == h)
      return c;
  return NULL;
}

/* A connection is "busy" only while one thread waits inside MQGET. IBM MQ
 * then fails other calls on the same Hconn with MQRC_CALL_IN_PROGRESS when
 * it was connected with MQCNO_HANDLE_SHARE_NO_BLOCK (what mq-golang asks
 * for) and makes them wait otherwise. The connection is looked up again
 * after every wait because it may have been disconnected meanwhile. */
static mqs_conn *wait_idle(MQHCONN h, PMQLONG cc, PMQLONG rc, int allow_broken)
{
  for (;;) {
    mqs_conn *c = mqs_conn_find(h);
    if (!c) {
      mqs_set(cc, rc, MQCC_FAILED, MQRC_HCONN_ERROR);
      return NULL;
    }
    if (c->broken && !allow_broken) {
      mqs_set(cc, rc, MQCC_FAILED, MQRC_CONNECTION_BROKEN);
      return NULL;
    }
    if (!c->busy)
      return c;
    if (c->cno_options & MQCNO_HANDLE_SHARE_NO_BLOCK) {
      mqs_set(cc, rc, MQCC_FAILED, MQRC_CALL_IN_PROGRESS);
      return NULL;
    }
    pthread_cond_wait(&g_idle, &g_mu);
  }
}

mqs_conn *mqs_conn_enter(MQHCONN h, PMQLONG cc, PMQLONG rc)
{
  return wait_idle(h, cc, rc, 0);
}

void mqs_conn_set_busy(mqs_conn *c, int busy)
{
  c->busy = busy;
  if (!busy)
    pthread_cond_broadcast(&g_idle);
}

mqs_hobj *mqs_hobj_find(mqs_conn *c, MQHOBJ h)
{
  for (mqs_hobj *o = c->objs; o; o = o->next)
    if (o->id == h)
      return o;
  return NULL;
}

void mqs_hobj_close(mqs_conn *c, mqs_hobj *o)
{
  for (mqs_hobj **pp = &c->objs; *pp; pp = &(*pp)->next)
    if (*pp == o) {
      *pp = o->next;
      break;
    }
  if (o->q) {
    if (o->input)
      o->q->ipprocs--;
    if (o->exclusive)
      o->q->excl--;
    if (o->options & MQOO_OUTPUT)
      o->q->opprocs--;
  }
  free(o);
}

/* ---- unit of work --------------------------------------------------- */

void mqs_uow_add(mqs_conn *c, mqs_msg *m)
{
  m->owner = c;
  m->uow_next = c->uow;
  c->uow = m;
}

void mqs_uow_commit(mqs_conn *c)
{
  mqs_msg *m = c->uow;
  c->uow = NULL;
  while (m) {
    mqs_msg *next = m->uow_next;
    m->uow_next = NULL;
    m->owner = NULL;
    if (m->state == MQS_PUT_PENDING) {
      mqs_msg_deliver(m);
    } else if (m->state == MQS_GET_PENDING) {
      mqs_msg_unlink(m);        /* depth already dropped at MQGET */
      mqs_msg_free(m);
    }
    m = next;
  }
}

void mqs_uow_backout(mqs_conn *c)
{
  mqs_msg *m = c->uow;
  c->uow = NULL;
  while (m) {
    mqs_msg *next = m->uow_next;
    m->uow_next = NULL;
    m->owner = NULL;
    if (m->state == MQS_PUT_PENDING) {
      m->q->depth--;
      mqs_msg_unlink(m);
      mqs_msg_free(m);
    } else if (m->state == MQS_GET_PENDING) {
      /* Never left its place in the queue, so it reappears where it was. */
      m->md.BackoutCount++;
      m->q->depth++;
      mqs_msg_make_visible(m);
    }
    m = next;
  }
}

/* What the queue manager does when a client connection drops: back out,
 * close the handles, and wake any getter so it can report 2009. */
void mqs_conn_break(mqs_conn *c)
{
  c->broken = 1;
  mqs_uow_backout(c);
  while (c->objs)
    mqs_hobj_close(c, c->objs);
  for (mqs_queue *q = c->qm->queues; q; q = q->next)
    pthread_cond_broadcast(&q->avail);
}

/* ---- MQCONNX -------------------------------------------------------- */

/* "host(port),host(port)" -- reject what a real client could not parse. */
static int conname_ok(const char *s)
{
  const char *p = s;
  while (*p) {
    while (*p == ' ')
      p++;
    const char *host = p;
    while (*p && *p != '(' && *p != ',')
      p++;
    if (p == host)
      return 0;
    if (*p == '(') {
      long port = 0;
      int digits = 0;
      for (p++; *p >= '0' && *p <= '9'; p++, digits++)
        port = port * 10 + (*p - '0');
      if (*p != ')' || !digits || port < 1 || port > 65535)
        return 0;
      p++;
    }
    while (*p == ' ')
      p++;
    if (*p == ',')
      p++;
    else if (*p)
      return 0;
  }
  return 1;
}

static const char *charv_or_ptr(const void *base, MQPTR ptr, MQLONG off)
{
  if (ptr)
    return (const char *)ptr;
  if (off > 0)
    return (const char *)base + off;
  return NULL;
}

/* Checks the client-side structures an application hands to MQCONNX.
 * Returns a reason code, and the user the connection runs as. */
static MQLONG check_cno(const MQCNO *cno, char *user, size_t usersz)
{
  if (!mqs_strucid_ok(cno->StrucId, MQCNO_STRUC_ID) || cno->Version < MQCNO_VERSION_1 ||
      cno->Version > MQCNO_CURRENT_VERSION)
    return MQRC_CNO_ERROR;

  if (cno->Version >= MQCNO_VERSION_2) {
    const MQCD *cd = cno->ClientConnPtr;
    if (!cd && cno->ClientConnOffset > 0)
      cd = (const MQCD *)((const char *)cno + cno->ClientConnOffset);
    if (cd) {
      if (cd->Version < 1 || cd->Version > MQCD_CURRENT_VERSION)
        return MQRC_CD_ERROR;
      if (cd->Version >= 2) {
        char conname[MQ_CONN_NAME_LENGTH + 1];
        mqs_fixed_to_c(conname, sizeof conname, cd->ConnectionName, MQ_CONN_NAME_LENGTH);
        if (!conname_ok(conname))
          return MQRC_HOST_NOT_AVAILABLE;
      }
    }
  }
  if (cno->Version >= MQCNO_VERSION_4) {
    const MQSCO *sco = cno->SSLConfigPtr;
    if (!sco && cno->SSLConfigOffset > 0)
      sco = (const MQSCO *)((const char *)cno + cno->SSLConfigOffset);
    if (sco && (!mqs_strucid_ok(sco->StrucId, MQSCO_STRUC_ID) || sco->Version < 1 ||
                sco->Version > MQSCO_CURRENT_VERSION))
      return MQRC_SCO_ERROR;
  }
  if (cno->Version >= MQCNO_VERSION_5) {
    const MQCSP *csp = cno->SecurityParmsPtr;
    if (!csp && cno->SecurityParmsOffset > 0)
      csp = (const MQCSP *)((const char *)cno + cno->SecurityParmsOffset);
    if (csp) {
      if (!mqs_strucid_ok(csp->StrucId, MQCSP_STRUC_ID) || csp->Version < 1 ||
          csp->Version > MQCSP_CURRENT_VERSION)
        return MQRC_CSP_ERROR;
      /* Any user/password is accepted; with authentication the messages
       * carry that user in MQMD.UserIdentifier, as with ADOPTCTX(YES). */
      const char *uid = charv_or_ptr(csp, csp->CSPUserIdPtr, csp->CSPUserIdOffset);
      if (csp->AuthenticationType == MQCSP_AUTH_USER_ID_AND_PWD && uid && csp->CSPUserIdLength > 0) {
        size_t n = (size_t)csp->CSPUserIdLength;
        if (n > MQ_USER_ID_LENGTH)
          n = MQ_USER_ID_LENGTH;
        mqs_fixed_to_c(user, usersz, uid, n);
      }
    }
  }
  return MQRC_NONE;
}

MQS_EXPORT void MQCONNX(PMQCHAR pQMgrName, PMQCNO pConnectOpts, PMQHCONN pHconn,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  if (mqs_faults_reset_requested() || !mqs_qmgrs_built())
    mqs_qmgrs_build();
  if (pHconn)
    *pHconn = MQHC_UNUSABLE_HCONN;

  MQLONG rc = mqs_fault_connx_reason();
  char user[MQ_USER_ID_LENGTH + 1] = "";
  if (!rc && !pHconn)
    rc = MQRC_HCONN_ERROR;
  if (!rc && !pConnectOpts)
    rc = MQRC_CNO_ERROR;
  if (!rc)
    rc = check_cno(pConnectOpts, user, sizeof user);

  mqs_qmgr *qm = NULL;
  if (!rc) {
    char name[MQ_Q_MGR_NAME_LENGTH + 1];
    mqs_fixed_to_c(name, sizeof name, pQMgrName, MQ_Q_MGR_NAME_LENGTH);
    /* "*QM1" asks for any member of a queue-manager group; ours are single. */
    const char *n = name[0] == '*' ? name + 1 : name;
    qm = mqs_qmgr_find(n);
    if (!qm)
      rc = MQRC_Q_MGR_NOT_AVAILABLE;
  }

  mqs_conn *c = NULL;
  if (!rc && !(c = calloc(1, sizeof *c)))
    rc = MQRC_STORAGE_NOT_AVAILABLE;
  if (rc) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, rc);
    mqs_unlock();
    return;
  }

  c->id = next_hconn++;
  c->qm = qm;
  c->cno_options = pConnectOpts->Options;
  c->next_hobj = 101;
  if (user[0]) {
    snprintf(c->user, sizeof c->user, "%s", user);
  } else {
    struct passwd pw, *res = NULL;
    char buf[1024];
    if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res) == 0 && res)
      snprintf(c->user, sizeof c->user, "%.12s", pw.pw_name);
    else
      snprintf(c->user, sizeof c->user, "mqstub");
  }
  mqs_new_id(c->connid, qm->name);
  memcpy(c->connid, "MQCT", 4);
  if (pConnectOpts->Version >= MQCNO_VERSION_5)
    memcpy(pConnectOpts->ConnectionId, c->connid, sizeof c->connid);
  c->next = g_conns;
  g_conns = c;

  *pHconn = c->id;
  mqs_set(pCompCode, pReason, MQCC_OK, MQRC_NONE);
  mqs_unlock();
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
  mqs_lock();
  mqs_faults_poll();
  if (!pHconn) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_HCONN_ERROR);
    mqs_unlock();
    return;
  }
  mqs_conn *c = wait_idle(*pHconn, pCompCode, pReason, 1);
  if (!c) {
    mqs_unlock();
    return;
  }
  /* IBM MQ commits an open unit of work on a normal MQDISC (a connection
   * that breaks is backed out instead, see mqs_conn_break). */
  if (mqs_env_long("MQSTUB_DISC_BACKOUT", 0) > 0)
    mqs_uow_backout(c);
  else
    mqs_uow_commit(c);
  while (c->objs)
    mqs_hobj_close(c, c->objs);
  mqs_hmsg_drop_for_conn(c->id);
  for (mqs_conn **pp = &g_conns; *pp; pp = &(*pp)->next)
    if (*pp == c) {
      *pp = c->next;
      break;
    }
  free(c);
  *pHconn = MQHC_UNUSABLE_HCONN;
  mqs_set(pCompCode, pReason, MQCC_OK, MQRC_NONE);
  mqs_unlock();
}

/* ---- MQCMIT / MQBACK ------------------------------------------------ */

MQS_EXPORT void MQCMIT(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason);
  if (c) {
    MQLONG rc;
    if (mqs_fault_take(MQS_FAULT_CMIT, &rc)) {
      /* A commit that fails leaves nothing half done: back it all out. */
      mqs_uow_backout(c);
      mqs_set(pCompCode, pReason, MQCC_FAILED, rc);
    } else {
      mqs_uow_commit(c);
      mqs_set(pCompCode, pReason, MQCC_OK, MQRC_NONE);
    }
  }
  mqs_unlock();
}

MQS_EXPORT void MQBACK(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  mqs_conn *c = mqs_conn_enter(Hconn, pCompCode, pReason);
  if (c) {
    mqs_uow_backout(c);
    mqs_set(pCompCode, pReason, MQCC_OK, MQRC_NONE);
  }
  mqs_unlock();
}
