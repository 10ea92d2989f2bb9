/*
 * qmgr.c -- the in-process queue managers and their local queues.
 *
 * Definitions come from MQSTUB_QMGRS ("QM1:Q.A,Q.B;QM2:Q.C"), default
 * QM1 with DEV.QUEUE.1..3; every queue manager also gets
 * DEV.DEAD.LETTER.QUEUE. A rebuild (first MQCONNX, MQSTUB_RESET) drops
 * every message but keeps queue objects alive, so connections and open
 * handles that predate the reset stay valid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

mqs_qmgr *g_qmgrs;
static int built;

int mqs_qmgrs_built(void) { return built; }

static void trim(char *s)
{
  size_t n = strlen(s), i = 0;
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
    s[--n] = '\0';
  while (s[i] == ' ' || s[i] == '\t')
    i++;
  if (i)
    memmove(s, s + i, n - i + 1);
}

static mqs_qmgr *qmgr_get(const char *name)
{
  for (mqs_qmgr *qm = g_qmgrs; qm; qm = qm->next)
    if (strcmp(qm->name, name) == 0)
      return qm;
  mqs_qmgr *qm = calloc(1, sizeof *qm);
  if (!qm)
    return NULL;
  snprintf(qm->name, sizeof qm->name, "%s", name);
  /* QMID is "<name>_<creation timestamp in hex>" on a real queue manager. */
  snprintf(qm->ident, sizeof qm->ident, "%.32s_%08lx", name, (unsigned long)time(NULL));
  mqs_qmgr **tail = &g_qmgrs;   /* keep configuration order: first is default */
  while (*tail)
    tail = &(*tail)->next;
  *tail = qm;
  return qm;
}

static void queue_define(mqs_qmgr *qm, const char *name)
{
  if (!*name || strlen(name) > MQ_Q_NAME_LENGTH) {
    fprintf(stderr, "mqstub: ignoring invalid queue name '%s'\n", name);
    return;
  }
  mqs_queue *q;
  for (q = qm->queues; q; q = q->next)
    if (strcmp(q->name, name) == 0)
      break;
  if (!q) {
    q = calloc(1, sizeof *q);
    if (!q)
      return;
    snprintf(q->name, sizeof q->name, "%s", name);
    q->qm = qm;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&q->avail, &ca);
    pthread_condattr_destroy(&ca);
    mqs_queue **tail = &qm->queues;
    while (*tail)
      tail = &(*tail)->next;
    *tail = q;
  }
  q->defined = 1;
  q->max_depth = MQS_MAX_DEPTH;
  q->max_msgl = MQS_MAX_MSGL;
  char date[8], tm[8];
  mqs_put_date_time(date, tm);
  /* CRDATE is "yyyy-mm-dd", CRTIME "hh.mm.ss", as MQINQ returns them. */
  snprintf(q->crdate, sizeof q->crdate, "%.4s-%.2s-%.2s", date, date + 4, date + 6);
  memcpy(q->crtime, tm, 2); q->crtime[2] = '.';
  memcpy(q->crtime + 3, tm + 2, 2); q->crtime[5] = '.';
  memcpy(q->crtime + 6, tm + 4, 2);
}

static void drop_all_messages(void)
{
  /* Units of work only reference messages; the messages go below. */
  for (mqs_conn *c = g_conns; c; c = c->next) {
    c->uow = NULL;
    for (mqs_hobj *o = c->objs; o; o = o->next)
      o->browse_set = 0;
  }
  for (mqs_qmgr *qm = g_qmgrs; qm; qm = qm->next)
    for (mqs_queue *q = qm->queues; q; q = q->next) {
      while (q->head) {
        mqs_msg *m = q->head;
        mqs_msg_unlink(m);
        mqs_msg_free(m);
      }
      q->depth = 0;
    }
}

void mqs_qmgrs_build(void)
{
  drop_all_messages();
  for (mqs_qmgr *qm = g_qmgrs; qm; qm = qm->next) {
    qm->defined = 0;
    for (mqs_queue *q = qm->queues; q; q = q->next)
      q->defined = 0;
  }

  const char *cfg = getenv("MQSTUB_QMGRS");
  if (!cfg || !*cfg)
    cfg = MQS_DEFAULT_QMGRS;
  char *copy = strdup(cfg), *save1 = NULL;
  if (!copy)
    return;
  for (char *def = strtok_r(copy, ";", &save1); def; def = strtok_r(NULL, ";", &save1)) {
    char *colon = strchr(def, ':');
    char *queues = NULL;
    if (colon) {
      *colon = '\0';
      queues = colon + 1;
    }
    trim(def);
    if (!*def || strlen(def) > MQ_Q_MGR_NAME_LENGTH) {
      fprintf(stderr, "mqstub: ignoring invalid queue manager name '%s'\n", def);
      continue;
    }
    mqs_qmgr *qm = qmgr_get(def);
    if (!qm)
      continue;
    qm->defined = 1;
    char *save2 = NULL;
    if (queues)
      for (char *qn = strtok_r(queues, ",", &save2); qn; qn = strtok_r(NULL, ",", &save2)) {
        trim(qn);
        if (*qn)
          queue_define(qm, qn);
      }
    queue_define(qm, MQS_DLQ_NAME);
  }
  free(copy);
  built = 1;
}

mqs_qmgr *mqs_qmgr_find(const char *name)
{
  for (mqs_qmgr *qm = g_qmgrs; qm; qm = qm->next)
    if (qm->defined && (!*name || strcmp(qm->name, name) == 0))
      return qm;
  return NULL;
}

mqs_queue *mqs_queue_find(mqs_qmgr *qm, const char *name)
{
  for (mqs_queue *q = qm->queues; q; q = q->next)
    if (q->defined && strcmp(q->name, name) == 0)
      return q;
  return NULL;
}

MQLONG mqs_queue_max_depth(const mqs_queue *q)
{
  long cap = mqs_env_long("MQSTUB_MAX_DEPTH", 0);   /* 0 or unset: no cap */
  if (cap > 0 && cap < q->max_depth)
    return (MQLONG)cap;
  return q->max_depth;
}

MQLONG mqs_queue_max_msgl(const mqs_queue *q)
{
  long v = mqs_env_long("MQSTUB_MAX_MSG_LENGTH", 0); /* 0 or unset: as defined */
  if (v > 0 && v <= 104857600)    /* IBM's limit is 100 MB */
    return (MQLONG)v;
  return q->max_msgl;
}
