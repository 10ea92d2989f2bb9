/*
 * internal.h -- shared state of the stub queue manager (not installed).
 *
 * Concurrency model: one process-wide mutex (g_mu) guards every object below.
 * MQI calls take it on entry and drop it only inside pthread_cond_*wait, so
 * the code between those points can treat the world as single-threaded.
 */
#ifndef MQSTUB_INTERNAL_H
#define MQSTUB_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cmqc.h"
#include "cmqxc.h"
#include "cmqstrc.h"

#define MQS_EXPORT __attribute__((visibility("default")))

/* ---- defaults ------------------------------------------------------ */
#define MQS_DEFAULT_QMGRS   "QM1:DEV.QUEUE.1,DEV.QUEUE.2,DEV.QUEUE.3"
#define MQS_DLQ_NAME        "DEV.DEAD.LETTER.QUEUE"
#define MQS_MAX_DEPTH       5000
#define MQS_MAX_MSGL        4194304
#define MQS_COMMAND_LEVEL   940
#define MQS_QMGR_CCSID      1208
#define MQS_MAX_PRIORITY    9
#define MQS_WAIT_SLICE_MS   50   /* waits re-check MQSTUB_BREAK this often */

/* ---- message properties ------------------------------------------- */
typedef struct mqs_prop {
  struct mqs_prop *next;        /* insertion order */
  char            *name;
  MQLONG           type;        /* MQTYPE_* */
  MQLONG           len;
  unsigned char   *value;
} mqs_prop;

mqs_prop *mqs_props_copy(const mqs_prop *src);
void      mqs_props_free(mqs_prop *p);

typedef struct mqs_hmsg {       /* a message handle (MQCRTMH) */
  struct mqs_hmsg *next;
  MQHMSG           id;
  MQHCONN          hconn;       /* owner, or MQHC_UNASSOCIATED_HCONN */
  mqs_prop        *props;
  int              cursor;      /* index of the last property MQINQMP returned, -1 none */
} mqs_hmsg;

mqs_hmsg *mqs_hmsg_find(MQHMSG id);
void      mqs_hmsg_drop_for_conn(MQHCONN hconn);

/* ---- queues and messages ------------------------------------------ */
typedef enum {
  MQS_VISIBLE,                  /* available to MQGET and browse */
  MQS_PUT_PENDING,              /* put under syncpoint, not yet committed */
  MQS_GET_PENDING               /* got under syncpoint, not yet committed */
} mqs_msgstate;

struct mqs_queue;
struct mqs_conn;

typedef struct mqs_msg {
  struct mqs_msg   *prev, *next; /* queue order: priority desc, then arrival */
  struct mqs_msg   *uow_next;    /* link in the owning unit of work */
  struct mqs_queue *q;
  struct mqs_conn  *owner;       /* unit of work holding a pending message */
  uint64_t          seq;         /* arrival number on its queue */
  MQLONG            prio;        /* ordering priority, 0..9 */
  mqs_msgstate      state;
  int               fault;       /* MQS_PUT_*: injected, applied when it becomes visible */
  int64_t           expires_ms;  /* monotonic deadline, 0 = never expires */
  MQMD              md;          /* stored descriptor (version 2) */
  MQLONG            len;
  unsigned char    *data;
  mqs_prop         *props;
} mqs_msg;

typedef struct mqs_queue {
  struct mqs_queue *next;
  struct mqs_qmgr  *qm;
  char              name[MQ_Q_NAME_LENGTH + 1];
  int               defined;     /* 0 once dropped from the configuration */
  MQLONG            max_depth;
  MQLONG            max_msgl;
  mqs_msg          *head, *tail;
  MQLONG            depth;       /* IBM CURDEPTH: visible + put-pending */
  MQLONG            ipprocs;     /* handles open for input */
  MQLONG            opprocs;     /* handles open for output */
  MQLONG            excl;        /* handles open for exclusive input */
  uint64_t          nextseq;
  pthread_cond_t    avail;       /* broadcast when a message becomes visible */
  char              crdate[MQ_CREATION_DATE_LENGTH];
  char              crtime[MQ_CREATION_TIME_LENGTH];
} mqs_queue;

typedef struct mqs_qmgr {
  struct mqs_qmgr *next;
  char             name[MQ_Q_MGR_NAME_LENGTH + 1];
  char             ident[MQ_Q_MGR_IDENTIFIER_LENGTH + 1];
  int              defined;
  mqs_queue       *queues;
} mqs_qmgr;

extern mqs_qmgr *g_qmgrs;

void       mqs_qmgrs_build(void);   /* (re)build from MQSTUB_QMGRS; drops all messages */
int        mqs_qmgrs_built(void);
mqs_qmgr  *mqs_qmgr_find(const char *name);  /* "" = default (first) */
mqs_queue *mqs_queue_find(mqs_qmgr *qm, const char *name);
MQLONG     mqs_queue_max_depth(const mqs_queue *q);   /* after MQSTUB_MAX_DEPTH */
MQLONG     mqs_queue_max_msgl(const mqs_queue *q);    /* after MQSTUB_MAX_MSG_LENGTH */

/* Open a queue or the queue manager object for connection c (MQOPEN, MQPUT1). */
struct mqs_hobj;
struct mqs_conn;
MQLONG mqs_open_object(struct mqs_conn *c, MQOD *od, MQLONG opts, struct mqs_hobj **out);

void mqs_msg_insert(mqs_queue *q, mqs_msg *m); /* in priority/arrival order */
void mqs_msg_unlink(mqs_msg *m);     /* take out of its queue (depth untouched) */
void mqs_msg_free(mqs_msg *m);
void mqs_msg_make_visible(mqs_msg *m);
/* Make a put visible (at MQPUT, or at MQCMIT under syncpoint), applying
 * m->fault: MQS_PUT_DROP frees it, MQS_PUT_DUP enqueues a copy behind it. */
void mqs_msg_deliver(mqs_msg *m);

/* ---- connections, object handles, units of work -------------------- */
typedef struct mqs_hobj {
  struct mqs_hobj *next;
  MQHOBJ           id;
  MQLONG           options;     /* MQOO_* as opened */
  MQLONG           objtype;     /* MQOT_Q or MQOT_Q_MGR */
  mqs_queue       *q;           /* NULL for the queue manager object */
  int              input;       /* counted in q->ipprocs */
  int              exclusive;   /* counted in q->excl */
  int              browse_set;  /* browse cursor position valid */
  MQLONG           browse_prio;
  uint64_t         browse_seq;
} mqs_hobj;

typedef struct mqs_conn {
  struct mqs_conn *next;
  MQHCONN          id;
  mqs_qmgr        *qm;
  int              broken;      /* MQSTUB_BREAK: everything but MQDISC fails 2009 */
  int              busy;        /* inside a waiting MQGET */
  MQLONG           cno_options;
  mqs_hobj        *objs;
  MQHOBJ           next_hobj;
  mqs_msg         *uow;         /* pending messages of the unit of work */
  char             user[MQ_USER_ID_LENGTH + 1];
  MQBYTE24         connid;
} mqs_conn;

extern mqs_conn *g_conns;
extern pthread_mutex_t g_mu;

/* Validate Hconn at the start of an MQI call (caller holds g_mu). Returns
 * NULL with CompCode/Reason set when the handle is unknown (2018), broken
 * (2009) or busy in another thread (2219, MQCNO_HANDLE_SHARE_NO_BLOCK). */
mqs_conn *mqs_conn_enter(MQHCONN h, PMQLONG cc, PMQLONG rc);
mqs_conn *mqs_conn_find(MQHCONN h);
mqs_hobj *mqs_hobj_find(mqs_conn *c, MQHOBJ h);
void      mqs_hobj_close(mqs_conn *c, mqs_hobj *o);
void      mqs_uow_add(mqs_conn *c, mqs_msg *m);
void      mqs_uow_commit(mqs_conn *c);
void      mqs_uow_backout(mqs_conn *c);
void      mqs_conn_break(mqs_conn *c);
void      mqs_conn_set_busy(mqs_conn *c, int busy);  /* wakes threads waiting for the Hconn */
void      mqs_lock(void);
void      mqs_unlock(void);

/* ---- fault injection (faults.c) ------------------------------------ */
enum { MQS_FAULT_PUT, MQS_FAULT_GET, MQS_FAULT_CMIT };
enum { MQS_PUT_NORMAL, MQS_PUT_DROP, MQS_PUT_DUP };   /* MQSTUB_DROP_PUT / MQSTUB_DUP_PUT */
void   mqs_faults_poll(void);           /* MQSTUB_BREAK; call at every MQI entry */
int    mqs_faults_reset_requested(void); /* MQSTUB_RESET changed since last look */
int    mqs_fault_take(int which, MQLONG *rc);
int    mqs_fault_put_effect(void);      /* counts a put; MQS_PUT_* */
MQLONG mqs_fault_connx_reason(void);
long   mqs_env_long(const char *name, long dflt); /* positive integer or dflt */

/* ---- utilities (util.c) -------------------------------------------- */
void    mqs_set(PMQLONG cc, PMQLONG rc, MQLONG ccv, MQLONG rcv);
void    mqs_fixed_to_c(char *dst, size_t dstsz, const char *src, size_t srclen);
void    mqs_c_to_fixed(char *dst, size_t dstlen, const char *src);
int     mqs_is_none(const MQBYTE *id, size_t n);
void    mqs_new_id(MQBYTE *id24, const char *qmname);
int64_t mqs_now_ms(void);                 /* CLOCK_MONOTONIC */
void    mqs_deadline(struct timespec *ts, int64_t ms_from_now);
void    mqs_put_date_time(char date[8], char time_[8]);
const char *mqs_prog_name(void);
int     mqs_strucid_ok(const void *p, const char *id);

static inline int mqs_popcount(MQLONG v) { return __builtin_popcount((unsigned)v); }

/* ---- strings ------------------------------------------------------- */
typedef struct { MQLONG v; const char *name; } mqs_strent;
const char *mqs_strlookup(const mqs_strent *t, size_t n, MQLONG v);

#endif /* MQSTUB_INTERNAL_H */
