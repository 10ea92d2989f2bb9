/*
 * stubtest.c -- self-test of libmqm_r.so through the plain C MQI.
 * Run by `scripts/build-mqstub.sh --check`; exits non-zero on any failure.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmqc.h>
#include <cmqxc.h>
#include <cmqstrc.h>

static _Atomic int failures, checks;  /* bumped from worker threads too */

#define CHECK(cond, ...)                                          \
  do {                                                            \
    checks++;                                                     \
    if (!(cond)) {                                                \
      failures++;                                                 \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);        \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
    }                                                             \
  } while (0)

#define CHECK_RC(want, got, what) \
  CHECK((want) == (got), "%s: want %d (%s), got %d (%s)", what, (int)(want), MQRC_STR(want), (int)(got), MQRC_STR(got))

/* ---- small wrappers --------------------------------------------------- */

static void fixed(char *dst, size_t n, const char *s)
{
  size_t l = strlen(s);
  memset(dst, ' ', n);
  memcpy(dst, s, l < n ? l : n);
}

static MQMD new_md(void)
{
  MQMD md;
  memset(&md, 0, sizeof md);
  memcpy(md.StrucId, MQMD_STRUC_ID, 4);
  md.Version = MQMD_VERSION_2;
  md.MsgType = MQMT_DATAGRAM;
  md.Expiry = MQEI_UNLIMITED;
  md.Encoding = MQENC_NATIVE;
  md.CodedCharSetId = MQCCSI_Q_MGR;
  memcpy(md.Format, MQFMT_STRING, 8);
  md.Priority = MQPRI_PRIORITY_AS_Q_DEF;
  md.Persistence = MQPER_PERSISTENCE_AS_Q_DEF;
  md.MsgSeqNumber = 1;
  md.OriginalLength = MQOL_UNDEFINED;
  return md;
}

static MQPMO new_pmo(MQLONG options)
{
  MQPMO pmo;
  memset(&pmo, 0, sizeof pmo);
  memcpy(pmo.StrucId, MQPMO_STRUC_ID, 4);
  pmo.Version = MQPMO_VERSION_3;
  pmo.Options = options;
  pmo.Timeout = -1;
  return pmo;
}

static MQGMO new_gmo(MQLONG options, MQLONG wait)
{
  MQGMO gmo;
  memset(&gmo, 0, sizeof gmo);
  memcpy(gmo.StrucId, MQGMO_STRUC_ID, 4);
  gmo.Version = MQGMO_VERSION_4;
  gmo.Options = options;
  gmo.WaitInterval = wait;
  gmo.MatchOptions = MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID;
  return gmo;
}

static MQLONG connect_client(const char *qmname, MQHCONN *h)
{
  MQCNO cno;
  MQCD cd;
  MQCSP csp;
  MQSCO sco;
  char name[MQ_Q_MGR_NAME_LENGTH];
  MQLONG cc, rc;
  memset(&cno, 0, sizeof cno);
  memset(&cd, 0, sizeof cd);
  memset(&csp, 0, sizeof csp);
  memset(&sco, 0, sizeof sco);
  memcpy(cno.StrucId, MQCNO_STRUC_ID, 4);
  cno.Version = MQCNO_VERSION_5;
  cno.Options = MQCNO_CLIENT_BINDING | MQCNO_HANDLE_SHARE_NO_BLOCK;
  cd.Version = MQCD_VERSION_11;
  cd.ChannelType = MQCHT_CLNTCONN;
  cd.TransportType = MQXPT_TCP;
  fixed(cd.ChannelName, sizeof cd.ChannelName, "DEV.APP.SVRCONN");
  fixed(cd.ConnectionName, sizeof cd.ConnectionName, "mq1(1414),mq2(1415)");
  fixed(cd.SSLCipherSpec, sizeof cd.SSLCipherSpec, "ANY_TLS12_OR_HIGHER");
  cno.ClientConnPtr = &cd;
  memcpy(sco.StrucId, MQSCO_STRUC_ID, 4);
  sco.Version = MQSCO_VERSION_5;
  fixed(sco.KeyRepository, sizeof sco.KeyRepository, "/var/mqm/ssl/key");
  cno.SSLConfigPtr = &sco;
  memcpy(csp.StrucId, MQCSP_STRUC_ID, 4);
  csp.Version = MQCSP_VERSION_1;
  csp.AuthenticationType = MQCSP_AUTH_USER_ID_AND_PWD;
  csp.CSPUserIdPtr = "app";
  csp.CSPUserIdLength = 3;
  csp.CSPPasswordPtr = "secret";
  csp.CSPPasswordLength = 6;
  cno.SecurityParmsPtr = &csp;
  fixed(name, sizeof name, qmname);
  MQCONNX(name, &cno, h, &cc, &rc);
  CHECK((cc == MQCC_OK) == (rc == MQRC_NONE), "MQCONNX cc/rc consistent (%d/%d)", (int)cc, (int)rc);
  return rc;
}

static MQHCONN conn(void)
{
  MQHCONN h;
  MQLONG rc = connect_client("QM1", &h);
  CHECK_RC(MQRC_NONE, rc, "connect QM1");
  return h;
}

static MQLONG open_q(MQHCONN h, const char *q, MQLONG opts, MQHOBJ *o)
{
  MQOD od;
  MQLONG cc, rc;
  memset(&od, 0, sizeof od);
  memcpy(od.StrucId, MQOD_STRUC_ID, 4);
  od.Version = MQOD_VERSION_1;
  od.ObjectType = MQOT_Q;
  fixed(od.ObjectName, sizeof od.ObjectName, q);
  MQOPEN(h, &od, opts, o, &cc, &rc);
  return rc;
}

static MQHOBJ open_ok(MQHCONN h, const char *q, MQLONG opts)
{
  MQHOBJ o;
  CHECK_RC(MQRC_NONE, open_q(h, q, opts, &o), q);
  return o;
}

static MQLONG put_msg(MQHCONN h, MQHOBJ o, const char *body, MQLONG prio, MQLONG opts, MQMD *out)
{
  MQMD md = new_md();
  MQPMO pmo = new_pmo(opts);
  MQLONG cc, rc;
  md.Priority = prio;
  MQPUT(h, o, &md, &pmo, (MQLONG)strlen(body), (PMQVOID)body, &cc, &rc);
  if (out)
    *out = md;
  return rc;
}

/* Get into buf (NUL terminated); returns the reason code. */
static MQLONG get_msg(MQHCONN h, MQHOBJ o, MQLONG opts, MQLONG wait, char *buf, MQLONG buflen, MQMD *out)
{
  MQMD md = new_md();
  MQGMO gmo = new_gmo(opts, wait);
  MQLONG cc, rc, len = 0;
  MQGET(h, o, &md, &gmo, buflen - 1, buf, &len, &cc, &rc);
  buf[(len < buflen - 1) ? len : buflen - 1] = '\0';
  if (rc != MQRC_NONE && rc != MQRC_TRUNCATED_MSG_ACCEPTED)
    buf[0] = '\0';
  if (out)
    *out = md;
  return rc;
}

static MQLONG depth(MQHCONN h, MQHOBJ o)
{
  MQLONG sel = MQIA_CURRENT_Q_DEPTH, val = -1, cc, rc;
  MQINQ(h, o, 1, &sel, 1, &val, 0, NULL, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "MQINQ depth");
  return val;
}

static void drain(MQHCONN h, MQHOBJ o)
{
  char buf[256];
  while (get_msg(h, o, MQGMO_NO_WAIT, 0, buf, sizeof buf, NULL) == MQRC_NONE)
    ;
}

static void disc(MQHCONN *h)
{
  MQLONG cc, rc;
  MQDISC(h, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "MQDISC");
}

static void token(const char *var)
{
  static int n;
  char v[64];
  snprintf(v, sizeof v, "t%ld-%d", (long)getpid(), ++n);
  setenv(var, v, 1);
}

/* ---- tests ------------------------------------------------------------ */

static void test_connect(void)
{
  MQHCONN h;
  MQLONG cc, rc;
  CHECK_RC(MQRC_Q_MGR_NOT_AVAILABLE, connect_client("NOSUCHQM", &h), "unknown qmgr");
  CHECK(h == MQHC_UNUSABLE_HCONN, "failed MQCONNX leaves an unusable handle");
  CHECK_RC(MQRC_NONE, connect_client("", &h), "blank name = default qmgr");
  disc(&h);
  MQCONN("QM1", &h, &cc, &rc);       /* NUL-terminated short name is fine */
  CHECK_RC(MQRC_NONE, rc, "MQCONN");
  disc(&h);
  MQDISC(&h, &cc, &rc);
  CHECK_RC(MQRC_HCONN_ERROR, rc, "MQDISC twice");
  MQCMIT(12345, &cc, &rc);
  CHECK_RC(MQRC_HCONN_ERROR, rc, "bad hconn");
}

static void test_round_trip_and_priority(void)
{
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.1", MQOO_OUTPUT | MQOO_INPUT_AS_Q_DEF | MQOO_INQUIRE);
  MQHOBJ bad;
  char buf[64];
  MQMD pmd, gmd;
  CHECK_RC(MQRC_UNKNOWN_OBJECT_NAME, open_q(h, "NO.SUCH.QUEUE", MQOO_OUTPUT, &bad), "unknown queue");
  drain(h, o);

  CHECK_RC(MQRC_NONE, put_msg(h, o, "hello", 0, MQPMO_NO_SYNCPOINT, &pmd), "put");
  CHECK(memcmp(pmd.MsgId, MQMI_NONE, 24) != 0 && memcmp(pmd.MsgId, "AMQ QM1", 7) == 0, "MsgId generated");
  CHECK(pmd.PutDate[0] == '2' && pmd.PutTime[0] != ' ', "PutDate/PutTime set");
  CHECK_RC(MQRC_NONE, get_msg(h, o, MQGMO_NO_WAIT, 0, buf, sizeof buf, &gmd), "get");
  CHECK(strcmp(buf, "hello") == 0, "body %s", buf);
  CHECK(memcmp(gmd.MsgId, pmd.MsgId, 24) == 0, "MsgId round trip");
  CHECK(gmd.CodedCharSetId == 1208 && gmd.Persistence == MQPER_NOT_PERSISTENT && gmd.Priority == 0,
        "defaults resolved (ccsid %d pers %d prio %d)", (int)gmd.CodedCharSetId, (int)gmd.Persistence,
        (int)gmd.Priority);
  CHECK(memcmp(gmd.UserIdentifier, "app ", 4) == 0, "context user from MQCSP");
  CHECK_RC(MQRC_NO_MSG_AVAILABLE, get_msg(h, o, MQGMO_NO_WAIT, 0, buf, sizeof buf, NULL), "empty");

  /* Two puts with the same supplied MsgId keep it unless MQPMO_NEW_MSG_ID. */
  MQMD md = new_md();
  MQPMO pmo = new_pmo(0);
  MQLONG cc, rc;
  memcpy(md.MsgId, "MY-OWN-MESSAGE-ID-000001", 24);
  MQPUT(h, o, &md, &pmo, 1, "a", &cc, &rc);
  CHECK(memcmp(md.MsgId, "MY-OWN-MESSAGE-ID-000001", 24) == 0, "supplied MsgId kept");
  pmo.Options = MQPMO_NEW_MSG_ID | MQPMO_NEW_CORREL_ID;
  MQPUT(h, o, &md, &pmo, 1, "b", &cc, &rc);
  CHECK(memcmp(md.MsgId, "MY-OWN-MESSAGE-ID-000001", 24) != 0 && memcmp(md.CorrelId, MQCI_NONE, 24) != 0,
        "MQPMO_NEW_MSG_ID / NEW_CORREL_ID");
  drain(h, o);

  const int prios[] = { 1, 5, 9, 5, 0, 12 };
  for (int i = 0; i < 6; i++) {
    char body[16];
    snprintf(body, sizeof body, "p%d-%d", prios[i], i);
    MQLONG r = put_msg(h, o, body, prios[i], 0, NULL);
    CHECK_RC(prios[i] > 9 ? MQRC_PRIORITY_EXCEEDS_MAXIMUM : MQRC_NONE, r, "put with priority");
  }
  const char *want[] = { "p9-2", "p12-5", "p5-1", "p5-3", "p1-0", "p0-4" };
  for (int i = 0; i < 6; i++) {
    get_msg(h, o, 0, 0, buf, sizeof buf, &gmd);
    CHECK(strcmp(buf, want[i]) == 0, "priority order #%d: want %s got %s", i, want[i], buf);
  }
  CHECK_RC(MQRC_PRIORITY_ERROR, put_msg(h, o, "x", -5, 0, NULL), "bad priority");

  /* Expiry: tenths of a second; an expired message is never returned. */
  md = new_md();
  md.Expiry = 1;
  pmo = new_pmo(0);
  MQPUT(h, o, &md, &pmo, 3, "old", &cc, &rc);
  md = new_md();
  md.Expiry = 600;
  MQPUT(h, o, &md, &pmo, 5, "fresh", &cc, &rc);
  usleep(150 * 1000);
  CHECK_RC(MQRC_NONE, get_msg(h, o, 0, 0, buf, sizeof buf, &gmd), "get after expiry");
  CHECK(strcmp(buf, "fresh") == 0 && gmd.Expiry > 0 && gmd.Expiry <= 600, "expired skipped (%s, %d)", buf,
        (int)gmd.Expiry);

  /* Truncation. */
  put_msg(h, o, "0123456789", 0, 0, NULL);
  CHECK_RC(MQRC_TRUNCATED_MSG_FAILED, get_msg(h, o, 0, 0, buf, 5, NULL), "truncated fails");
  MQLONG len = 0;
  MQGMO gmo = new_gmo(MQGMO_ACCEPT_TRUNCATED_MSG, 0);
  md = new_md();
  MQGET(h, o, &md, &gmo, 4, buf, &len, &cc, &rc);
  CHECK(rc == MQRC_TRUNCATED_MSG_ACCEPTED && cc == MQCC_WARNING && len == 10 && memcmp(buf, "0123", 4) == 0,
        "accept truncated (rc %d len %d)", (int)rc, (int)len);
  CHECK(depth(h, o) == 0, "truncated accepted message removed");

  /* Message too big. */
  static char big[4194304 + 1];
  md = new_md();
  MQPUT(h, o, &md, &pmo, 4194304 + 1, big, &cc, &rc);
  CHECK_RC(MQRC_MSG_TOO_BIG_FOR_Q, rc, "too big");

  MQCLOSE(h, &o, MQCO_NONE, &cc, &rc);
  CHECK(rc == MQRC_NONE && o == MQHO_UNUSABLE_HOBJ, "MQCLOSE");
  MQCLOSE(h, &o, MQCO_NONE, &cc, &rc);
  CHECK_RC(MQRC_HOBJ_ERROR, rc, "close twice");
  disc(&h);
}

static void test_syncpoint(void)
{
  MQHCONN h = conn(), h2 = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.2", MQOO_OUTPUT | MQOO_INPUT_SHARED | MQOO_INQUIRE);
  MQHOBJ o2 = open_ok(h2, "DEV.QUEUE.2", MQOO_INPUT_SHARED);
  MQLONG cc, rc;
  char buf[64];
  MQMD md;
  drain(h, o);

  put_msg(h, o, "sp1", 0, MQPMO_SYNCPOINT, NULL);
  CHECK(depth(h, o) == 1, "uncommitted put counts in CURDEPTH");
  CHECK_RC(MQRC_NO_MSG_AVAILABLE, get_msg(h2, o2, 0, 0, buf, sizeof buf, NULL), "uncommitted put invisible");
  CHECK_RC(MQRC_NO_MSG_AVAILABLE, get_msg(h, o, 0, 0, buf, sizeof buf, NULL), "invisible to putter too");
  MQBACK(h, &cc, &rc);
  CHECK(depth(h, o) == 0, "backed-out put vanished");

  put_msg(h, o, "a", 0, 0, NULL);
  put_msg(h, o, "b", 0, 0, NULL);
  put_msg(h, o, "c", 0, MQPMO_SYNCPOINT, NULL);
  MQCMIT(h, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "MQCMIT");
  CHECK_RC(MQRC_NONE, get_msg(h, o, MQGMO_SYNCPOINT, 0, buf, sizeof buf, NULL), "get under syncpoint");
  CHECK(strcmp(buf, "a") == 0 && depth(h, o) == 2, "syncpoint get decrements depth");
  get_msg(h2, o2, 0, 0, buf, sizeof buf, NULL);
  CHECK(strcmp(buf, "b") == 0, "other connection skips the pending get (%s)", buf);
  MQBACK(h, &cc, &rc);
  get_msg(h2, o2, 0, 0, buf, sizeof buf, &md);
  CHECK(strcmp(buf, "a") == 0 && md.BackoutCount == 1, "backed-out get reappears first, BackoutCount 1 (%s %d)",
        buf, (int)md.BackoutCount);
  get_msg(h, o, MQGMO_SYNCPOINT, 0, buf, sizeof buf, NULL);
  MQCMIT(h, &cc, &rc);
  CHECK(depth(h, o) == 0 && strcmp(buf, "c") == 0, "committed get final");

  /* Normal MQDISC commits the unit of work (IBM behaviour). */
  put_msg(h, o, "on-disc", 0, MQPMO_SYNCPOINT, NULL);
  disc(&h);
  CHECK_RC(MQRC_NONE, get_msg(h2, o2, 0, 0, buf, sizeof buf, NULL), "MQDISC committed");
  disc(&h2);
}

struct putter { int delay_ms; const char *q; const char *body; };

static void *put_later(void *arg)
{
  struct putter *p = arg;
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, p->q, MQOO_OUTPUT);
  usleep((useconds_t)p->delay_ms * 1000);
  put_msg(h, o, p->body, 0, 0, NULL);
  disc(&h);
  return NULL;
}

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_wait(void)
{
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.3", MQOO_INPUT_AS_Q_DEF | MQOO_OUTPUT);
  char buf[64];
  drain(h, o);
  pthread_t t;
  struct putter p = { 200, "DEV.QUEUE.3", "woken" };
  pthread_create(&t, NULL, put_later, &p);
  int64_t t0 = now_ms();
  MQLONG rc = get_msg(h, o, MQGMO_WAIT, MQWI_UNLIMITED, buf, sizeof buf, NULL);
  int64_t el = now_ms() - t0;
  pthread_join(t, NULL);
  CHECK(rc == MQRC_NONE && strcmp(buf, "woken") == 0 && el >= 150 && el < 2000, "wait woken (%d %s %ldms)",
        (int)rc, buf, (long)el);
  t0 = now_ms();
  rc = get_msg(h, o, MQGMO_WAIT, 250, buf, sizeof buf, NULL);
  el = now_ms() - t0;
  CHECK(rc == MQRC_NO_MSG_AVAILABLE && el >= 240, "wait times out (%d, %ldms)", (int)rc, (long)el);
  disc(&h);
}

static void test_browse_and_select(void)
{
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.1", MQOO_INPUT_AS_Q_DEF | MQOO_OUTPUT | MQOO_BROWSE | MQOO_INQUIRE);
  MQHOBJ wo = open_ok(h, "DEV.QUEUE.1", MQOO_OUTPUT);
  char buf[64];
  MQMD md, m2;
  MQLONG cc, rc, len;
  drain(h, o);
  put_msg(h, wo, "one", 0, 0, NULL);
  put_msg(h, wo, "two", 0, 0, &m2);
  put_msg(h, wo, "three", 0, 0, NULL);

  CHECK_RC(MQRC_NONE, get_msg(h, o, MQGMO_BROWSE_FIRST, 0, buf, sizeof buf, NULL), "browse first");
  CHECK(strcmp(buf, "one") == 0, "browse first = %s", buf);
  /* 2080 leaves the cursor on "one": the next browse returns "two" again. */
  CHECK_RC(MQRC_TRUNCATED_MSG_FAILED, get_msg(h, o, MQGMO_BROWSE_NEXT, 0, buf, 2, NULL), "browse next truncated");
  get_msg(h, o, MQGMO_BROWSE_NEXT, 0, buf, sizeof buf, NULL);
  CHECK(strcmp(buf, "two") == 0, "browse next = %s", buf);
  put_msg(h, wo, "urgent", 9, 0, NULL);   /* ahead of the cursor: not seen by BROWSE_NEXT */
  get_msg(h, o, MQGMO_BROWSE_NEXT, 0, buf, sizeof buf, NULL);
  CHECK(strcmp(buf, "three") == 0, "browse next = %s", buf);
  CHECK_RC(MQRC_NO_MSG_AVAILABLE, get_msg(h, o, MQGMO_BROWSE_NEXT, 0, buf, sizeof buf, NULL), "browse end");
  CHECK(depth(h, o) == 4, "browse does not remove");
  get_msg(h, o, MQGMO_BROWSE_FIRST, 0, buf, sizeof buf, NULL);
  CHECK(strcmp(buf, "urgent") == 0, "browse first restarts (%s)", buf);
  CHECK_RC(MQRC_NONE, get_msg(h, o, MQGMO_MSG_UNDER_CURSOR, 0, buf, sizeof buf, NULL), "get under cursor");
  CHECK(strcmp(buf, "urgent") == 0 && depth(h, o) == 3, "destructive get under cursor");
  CHECK_RC(MQRC_OPTIONS_ERROR, get_msg(h, o, MQGMO_BROWSE_FIRST | MQGMO_SYNCPOINT, 0, buf, sizeof buf, NULL),
           "browse+syncpoint");

  /* Selection by MsgId (version-1 GMO matches MsgId and CorrelId). */
  md = new_md();
  memcpy(md.MsgId, m2.MsgId, 24);
  MQGMO gmo = new_gmo(0, 0);
  gmo.Version = MQGMO_VERSION_1;
  MQGET(h, o, &md, &gmo, sizeof buf, buf, &len, &cc, &rc);
  CHECK(rc == MQRC_NONE && len == 3 && memcmp(buf, "two", 3) == 0, "select by MsgId");

  /* Selection by CorrelId, MatchOptions only CorrelId. */
  md = new_md();
  MQPMO pmo = new_pmo(0);
  memcpy(md.CorrelId, "CORRELATION-ID-000000042", 24);
  MQPUT(h, wo, &md, &pmo, 6, "tagged", &cc, &rc);
  md = new_md();
  memcpy(md.CorrelId, "CORRELATION-ID-000000042", 24);
  gmo = new_gmo(0, 0);
  gmo.MatchOptions = MQMO_MATCH_CORREL_ID;
  MQGET(h, o, &md, &gmo, sizeof buf, buf, &len, &cc, &rc);
  CHECK(rc == MQRC_NONE && len == 6 && memcmp(buf, "tagged", 6) == 0, "select by CorrelId");
  md = new_md();
  memcpy(md.CorrelId, "NO-SUCH-CORRELATION-ID-0", 24);
  gmo = new_gmo(0, 0);
  gmo.MatchOptions = MQMO_MATCH_CORREL_ID;
  MQGET(h, o, &md, &gmo, sizeof buf, buf, &len, &cc, &rc);
  CHECK_RC(MQRC_NO_MSG_AVAILABLE, rc, "no match");

  /* Open modes. */
  MQHOBJ x;
  CHECK_RC(MQRC_OBJECT_IN_USE, open_q(h, "DEV.QUEUE.1", MQOO_INPUT_EXCLUSIVE, &x), "exclusive while shared");
  md = new_md();
  pmo = new_pmo(0);
  MQGET(h, wo, &md, &gmo, sizeof buf, buf, &len, &cc, &rc);
  CHECK_RC(MQRC_NOT_OPEN_FOR_INPUT, rc, "get on output handle");
  MQPUT(h, o, &md, &pmo, 1, "x", &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "put on output handle");
  disc(&h);
}

static void test_inquire(void)
{
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.1", MQOO_INPUT_SHARED | MQOO_INQUIRE);
  MQHOBJ w1 = open_ok(h, "DEV.QUEUE.1", MQOO_OUTPUT), w2 = open_ok(h, "DEV.QUEUE.1", MQOO_OUTPUT);
  MQLONG sel[] = { MQIA_CURRENT_Q_DEPTH, MQCA_Q_NAME, MQIA_MAX_Q_DEPTH, MQIA_OPEN_INPUT_COUNT,
                   MQIA_OPEN_OUTPUT_COUNT, MQIA_MAX_MSG_LENGTH };
  MQLONG ia[5], cc, rc;
  char ca[MQ_Q_NAME_LENGTH];
  drain(h, o);
  put_msg(h, w1, "d", 0, 0, NULL);
  MQINQ(h, o, 6, sel, 5, ia, sizeof ca, ca, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "MQINQ queue");
  CHECK(ia[0] == 1 && ia[1] == 5000 && ia[2] == 1 && ia[3] == 2 && ia[4] == 4194304,
        "queue ints %d %d %d %d %d", (int)ia[0], (int)ia[1], (int)ia[2], (int)ia[3], (int)ia[4]);
  CHECK(memcmp(ca, "DEV.QUEUE.1 ", 12) == 0 && ca[MQ_Q_NAME_LENGTH - 1] == ' ', "queue name blank padded");
  MQINQ(h, o, 6, sel, 2, ia, sizeof ca, ca, &cc, &rc);
  CHECK(cc == MQCC_WARNING && rc == MQRC_INT_ATTR_COUNT_TOO_SMALL, "too few ints warns");
  MQLONG badsel = MQIA_COMMAND_LEVEL;
  MQINQ(h, o, 1, &badsel, 1, ia, 0, NULL, &cc, &rc);
  CHECK_RC(MQRC_SELECTOR_ERROR, rc, "qmgr selector on queue");
  MQINQ(h, w1, 1, sel, 1, ia, 0, NULL, &cc, &rc);
  CHECK_RC(MQRC_NOT_OPEN_FOR_INQUIRE, rc, "inquire needs MQOO_INQUIRE");
  MQCLOSE(h, &w2, 0, &cc, &rc);
  MQINQ(h, o, 1, &sel[4], 1, ia, 0, NULL, &cc, &rc);
  CHECK(ia[0] == 1, "output count after close %d", (int)ia[0]);

  MQOD od;
  MQHOBJ q;
  memset(&od, 0, sizeof od);
  memcpy(od.StrucId, MQOD_STRUC_ID, 4);
  od.Version = MQOD_VERSION_1;
  od.ObjectType = MQOT_Q_MGR;
  MQOPEN(h, &od, MQOO_INQUIRE, &q, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "open qmgr");
  MQLONG qsel[] = { MQCA_Q_MGR_NAME, MQIA_COMMAND_LEVEL, MQIA_PLATFORM };
  char qn[MQ_Q_MGR_NAME_LENGTH];
  MQINQ(h, q, 3, qsel, 2, ia, sizeof qn, qn, &cc, &rc);
  CHECK(rc == MQRC_NONE && memcmp(qn, "QM1 ", 4) == 0 && ia[0] == 940 && ia[1] == MQPL_UNIX, "qmgr attrs");
  MQOPEN(h, &od, MQOO_OUTPUT, &q, &cc, &rc);
  CHECK_RC(MQRC_OPTION_NOT_VALID_FOR_TYPE, rc, "qmgr open for output");
  drain(h, o);
  disc(&h);
}

static MQCHARV charv(const char *s)
{
  MQCHARV v = MQCHARV_DEFAULT;
  v.VSPtr = (MQPTR)s;
  v.VSLength = (MQLONG)strlen(s);
  return v;
}

static void test_properties(void)
{
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.2", MQOO_INPUT_SHARED | MQOO_OUTPUT);
  MQCMHO cmho = { MQCMHO_STRUC_ID, MQCMHO_VERSION_1, MQCMHO_DEFAULT_VALIDATION };
  MQSMPO smpo = { MQSMPO_STRUC_ID, MQSMPO_VERSION_1, MQSMPO_SET_FIRST, MQENC_NATIVE, MQCCSI_APPL };
  MQPD pd = { MQPD_STRUC_ID, MQPD_VERSION_1, MQPD_NONE, MQPD_SUPPORT_OPTIONAL, MQPD_NO_CONTEXT, MQCOPY_DEFAULT };
  MQDMHO dmho = { MQDMHO_STRUC_ID, MQDMHO_VERSION_1, MQDMHO_NONE };
  MQHMSG hp, hg;
  MQLONG cc, rc, i32 = 42;
  MQINT64 i64 = 1LL << 40;
  drain(h, o);

  MQCRTMH(h, &cmho, &hp, &cc, &rc);
  CHECK(rc == MQRC_NONE && hp > 0xffffffffLL, "MQCRTMH 64-bit handle");
  MQCHARV n1 = charv("traceId"), n2 = charv("count"), n3 = charv("big"), n4 = charv("gone");
  MQSETMP(h, hp, &smpo, &n1, &pd, MQTYPE_STRING, MQVL_NULL_TERMINATED, "abc-123", &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "MQSETMP string");
  MQSETMP(h, hp, &smpo, &n2, &pd, MQTYPE_INT32, 4, &i32, &cc, &rc);
  MQSETMP(h, hp, &smpo, &n3, &pd, MQTYPE_INT64, 8, &i64, &cc, &rc);
  MQSETMP(h, hp, &smpo, &n4, &pd, MQTYPE_INT32, 4, &i32, &cc, &rc);
  MQSETMP(h, hp, &smpo, &n2, &pd, MQTYPE_INT32, 2, &i32, &cc, &rc);
  CHECK(cc == MQCC_FAILED, "INT32 with length 2 rejected");
  MQSETMP(h, hp, &smpo, &n2, &pd, 12345, 4, &i32, &cc, &rc);
  CHECK_RC(MQRC_PROPERTY_TYPE_ERROR, rc, "bad type");
  MQDMPO dmpo = { MQDMPO_STRUC_ID, MQDMPO_VERSION_1, MQDMPO_DEL_FIRST };
  MQDLTMP(h, hp, &dmpo, &n4, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "MQDLTMP");

  MQMD md = new_md();
  MQPMO pmo = new_pmo(0);
  pmo.OriginalMsgHandle = hp;
  MQPUT(h, o, &md, &pmo, 5, "props", &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "put with OriginalMsgHandle");
  MQDLTMH(h, &hp, &dmho, &cc, &rc);
  CHECK(rc == MQRC_NONE && hp == MQHM_UNUSABLE_HMSG, "MQDLTMH");

  MQCRTMH(h, &cmho, &hg, &cc, &rc);
  MQGMO gmo = new_gmo(MQGMO_PROPERTIES_IN_HANDLE, 0);
  gmo.MsgHandle = hg;
  char buf[32];
  MQLONG len;
  md = new_md();
  MQGET(h, o, &md, &gmo, sizeof buf, buf, &len, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "get with MsgHandle");

  /* The mq-golang loop: name "%", MQIMPO_INQ_NEXT until 2471. */
  MQIMPO impo;
  memset(&impo, 0, sizeof impo);
  memcpy(impo.StrucId, MQIMPO_STRUC_ID, 4);
  impo.Version = MQIMPO_VERSION_1;
  impo.Options = MQIMPO_INQ_NEXT;
  char rname[64], value[64];
  const char *want[] = { "traceId", "count", "big" };
  int n = 0;
  for (;;) {
    MQCHARV all = charv("%");
    MQLONG type = 0, dlen = 0;
    impo.ReturnedName.VSPtr = rname;
    impo.ReturnedName.VSBufSize = sizeof rname;
    MQINQMP(h, hg, &impo, &all, &pd, &type, sizeof value, value, &dlen, &cc, &rc);
    if (rc != MQRC_NONE) {
      CHECK_RC(MQRC_PROPERTY_NOT_AVAILABLE, rc, "end of properties");
      break;
    }
    CHECK(n < 3 && impo.ReturnedName.VSLength == (MQLONG)strlen(want[n]) &&
              memcmp(rname, want[n], strlen(want[n])) == 0,
          "property %d name", n);
    if (n == 0)
      CHECK(type == MQTYPE_STRING && dlen == 7 && memcmp(value, "abc-123", 7) == 0, "string value");
    if (n == 1)
      CHECK(type == MQTYPE_INT32 && dlen == 4 && *(MQLONG *)value == 42, "int32 value");
    if (n == 2)
      CHECK(type == MQTYPE_INT64 && *(MQINT64 *)value == (1LL << 40), "int64 value");
    n++;
  }
  CHECK(n == 3, "3 properties, got %d", n);

  /* A named inquiry and a too-small value buffer. */
  MQCHARV tn = charv("traceId");
  MQLONG type, dlen;
  impo.Options = MQIMPO_INQ_FIRST;
  MQINQMP(h, hg, &impo, &tn, &pd, &type, 3, value, &dlen, &cc, &rc);
  CHECK(rc == MQRC_PROPERTY_VALUE_TOO_BIG && dlen == 7, "value too big");
  MQDLTMH(h, &hg, &dmho, &cc, &rc);
  MQDLTMH(h, &hg, &dmho, &cc, &rc);
  CHECK_RC(MQRC_HMSG_ERROR, rc, "MQDLTMH twice");
  disc(&h);
}

static void test_unsupported(void)
{
  MQHCONN h = conn();
  MQLONG cc, rc;
  MQHOBJ ho = MQHO_NONE, hs;
  MQSD sd;
  memset(&sd, 0, sizeof sd);
  MQSUB(h, &sd, &ho, &hs, &cc, &rc);
  CHECK(cc == MQCC_FAILED && rc == MQRC_FUNCTION_NOT_SUPPORTED, "MQSUB 2298");
  MQCTL(h, MQOP_START, NULL, &cc, &rc);
  CHECK_RC(MQRC_FUNCTION_NOT_SUPPORTED, rc, "MQCTL");
  MQBEGIN(h, NULL, &cc, &rc);
  CHECK_RC(MQRC_FUNCTION_NOT_SUPPORTED, rc, "MQBEGIN");
  disc(&h);
  CHECK(strcmp(MQRC_STR(2085), "MQRC_UNKNOWN_OBJECT_NAME") == 0, "MQRC_STR");
  CHECK(strcmp(MQCC_STR(2), "MQCC_FAILED") == 0 && strcmp(MQRC_STR(1), "") == 0, "MQCC_STR / unknown");
  CHECK(strcmp(MQIA_STR(3), "MQIA_CURRENT_Q_DEPTH") == 0, "MQIA_STR");
}

static void test_faults(void)
{
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.3", MQOO_INPUT_SHARED | MQOO_OUTPUT | MQOO_INQUIRE);
  MQLONG cc, rc;
  char buf[32];
  drain(h, o);

  setenv("MQSTUB_CONNX_REASON", "2538", 1);
  MQHCONN x;
  CHECK_RC(MQRC_HOST_NOT_AVAILABLE, connect_client("QM1", &x), "MQSTUB_CONNX_REASON");
  setenv("MQSTUB_CONNX_REASON", "", 1);
  CHECK_RC(MQRC_NONE, connect_client("QM1", &x), "empty MQSTUB_CONNX_REASON is off");
  disc(&x);
  unsetenv("MQSTUB_CONNX_REASON");

  setenv("MQSTUB_FAIL_PUT", "2:2053", 1);
  CHECK_RC(MQRC_NONE, put_msg(h, o, "1", 0, 0, NULL), "put 1");
  CHECK_RC(MQRC_Q_FULL, put_msg(h, o, "2", 0, 0, NULL), "put 2 injected");
  CHECK_RC(MQRC_NONE, put_msg(h, o, "3", 0, 0, NULL), "put 3 (fails once)");
  CHECK(depth(h, o) == 2, "injected put had no effect");
  setenv("MQSTUB_FAIL_PUT", "2:2053", 1);   /* same value, fresh setenv: re-armed */
  put_msg(h, o, "4", 0, 0, NULL);
  CHECK_RC(MQRC_Q_FULL, put_msg(h, o, "5", 0, 0, NULL), "re-armed");
  unsetenv("MQSTUB_FAIL_PUT");

  setenv("MQSTUB_FAIL_PUT", "5", 1);         /* malformed: ignored */
  CHECK_RC(MQRC_NONE, put_msg(h, o, "m", 0, 0, NULL), "malformed FAIL_PUT ignored");
  setenv("MQSTUB_FAIL_PUT", "0:2053", 1);    /* disarmed */
  CHECK_RC(MQRC_NONE, put_msg(h, o, "n", 0, 0, NULL), "0:<rc> disarms");
  unsetenv("MQSTUB_FAIL_PUT");
  get_msg(h, o, 0, 0, buf, sizeof buf, NULL);
  get_msg(h, o, 0, 0, buf, sizeof buf, NULL);
  setenv("MQSTUB_FAIL_GET", "1:2009", 1);
  CHECK_RC(MQRC_CONNECTION_BROKEN, get_msg(h, o, 0, 0, buf, sizeof buf, NULL), "get injected");
  CHECK(depth(h, o) == 3, "injected get had no effect");
  CHECK_RC(MQRC_NONE, get_msg(h, o, 0, 0, buf, sizeof buf, NULL), "next get fine");
  unsetenv("MQSTUB_FAIL_GET");

  put_msg(h, o, "tx", 0, MQPMO_SYNCPOINT, NULL);
  get_msg(h, o, MQGMO_SYNCPOINT, 0, buf, sizeof buf, NULL);
  setenv("MQSTUB_FAIL_CMIT", "1:2003", 1);
  MQCMIT(h, &cc, &rc);
  CHECK(cc == MQCC_FAILED && rc == MQRC_BACKED_OUT, "commit injected");
  CHECK(depth(h, o) == 2, "failed commit backed out (depth %d)", (int)depth(h, o));
  unsetenv("MQSTUB_FAIL_CMIT");

  setenv("MQSTUB_MAX_DEPTH", "3", 1);
  CHECK_RC(MQRC_NONE, put_msg(h, o, "x", 0, 0, NULL), "put to cap");
  CHECK_RC(MQRC_Q_FULL, put_msg(h, o, "y", 0, 0, NULL), "MQSTUB_MAX_DEPTH");
  MQLONG sel = MQIA_MAX_Q_DEPTH, v;
  MQINQ(h, o, 1, &sel, 1, &v, 0, NULL, &cc, &rc);
  CHECK(v == 3, "capped MAXDEPTH visible to MQINQ");
  setenv("MQSTUB_MAX_DEPTH", "0", 1);
  MQINQ(h, o, 1, &sel, 1, &v, 0, NULL, &cc, &rc);
  CHECK(v == 5000, "MQSTUB_MAX_DEPTH=0 means no cap");
  unsetenv("MQSTUB_MAX_DEPTH");

  setenv("MQSTUB_MAX_MSG_LENGTH", "4", 1);
  CHECK_RC(MQRC_MSG_TOO_BIG_FOR_Q, put_msg(h, o, "12345", 0, 0, NULL), "MQSTUB_MAX_MSG_LENGTH");
  unsetenv("MQSTUB_MAX_MSG_LENGTH");

  /* BREAK: existing connections fail 2009 (a waiting MQGET too). */
  MQHCONN hw = conn();
  MQHOBJ ow = open_ok(hw, "DEV.QUEUE.2", MQOO_INPUT_SHARED);
  put_msg(h, o, "pending", 0, MQPMO_SYNCPOINT, NULL);
  token("MQSTUB_BREAK");
  CHECK_RC(MQRC_CONNECTION_BROKEN, put_msg(h, o, "z", 0, 0, NULL), "broken put");
  CHECK_RC(MQRC_CONNECTION_BROKEN, get_msg(hw, ow, 0, 0, buf, sizeof buf, NULL), "broken get");
  disc(&h);
  disc(&hw);
  h = conn();
  o = open_ok(h, "DEV.QUEUE.3", MQOO_INPUT_SHARED | MQOO_INQUIRE);
  CHECK(depth(h, o) == 3, "break backed out the pending put, kept the rest (depth %d)", (int)depth(h, o));

  /* RESET: the next MQCONNX rebuilds, old handles stay usable. */
  token("MQSTUB_RESET");
  CHECK(depth(h, o) == 3, "reset waits for the next MQCONNX");
  MQHCONN h2 = conn();
  CHECK(depth(h, o) == 0, "reset dropped all messages");
  disc(&h2);

  setenv("MQSTUB_QMGRS", "QMA:APP.IN, APP.OUT;QMB", 1);
  token("MQSTUB_RESET");
  CHECK_RC(MQRC_Q_MGR_NOT_AVAILABLE, connect_client("QM1", &h2), "QM1 undefined");
  CHECK_RC(MQRC_NONE, connect_client("QMB", &h2), "QMB defined");
  MQHOBJ t;
  CHECK_RC(MQRC_NONE, open_q(h2, "DEV.DEAD.LETTER.QUEUE", MQOO_OUTPUT, &t), "DLQ always added");
  CHECK_RC(MQRC_UNKNOWN_OBJECT_NAME, open_q(h2, "APP.IN", MQOO_OUTPUT, &t), "APP.IN is on QMA");
  disc(&h2);
  CHECK_RC(MQRC_NONE, connect_client("", &h2), "blank = first (QMA)");
  CHECK_RC(MQRC_NONE, open_q(h2, "APP.OUT", MQOO_OUTPUT, &t), "APP.OUT on QMA");
  disc(&h2);
  unsetenv("MQSTUB_QMGRS");
  token("MQSTUB_RESET");
  disc(&h);
}

/* MQSTUB_DROP_PUT / MQSTUB_DUP_PUT: loss and duplication that look like
 * successful puts; under syncpoint they take effect at MQCMIT. */
static void test_put_faults(void)
{
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.2", MQOO_INPUT_SHARED | MQOO_OUTPUT | MQOO_INQUIRE);
  MQLONG cc, rc;
  char buf[32];
  MQMD pmd, gmd;
  unsetenv("MQSTUB_DROP_PUT");   /* the script does not clear these */
  unsetenv("MQSTUB_DUP_PUT");
  drain(h, o);

  setenv("MQSTUB_DROP_PUT", "2", 1);
  CHECK_RC(MQRC_NONE, put_msg(h, o, "1", 0, 0, NULL), "put 1");
  CHECK_RC(MQRC_NONE, put_msg(h, o, "2", 0, 0, &pmd), "dropped put reports success");
  CHECK(memcmp(pmd.MsgId, MQMI_NONE, 24) != 0, "dropped put returns a MsgId");
  CHECK_RC(MQRC_NONE, put_msg(h, o, "3", 0, 0, NULL), "put 3");
  CHECK(depth(h, o) == 2, "MQSTUB_DROP_PUT discarded one message (depth %d)", (int)depth(h, o));
  get_msg(h, o, 0, 0, buf, sizeof buf, NULL);
  CHECK(strcmp(buf, "1") == 0, "first survivor %s", buf);
  get_msg(h, o, 0, 0, buf, sizeof buf, NULL);
  CHECK(strcmp(buf, "3") == 0, "second survivor %s", buf);
  setenv("MQSTUB_DROP_PUT", "1", 1);
  put_msg(h, o, "tx", 0, MQPMO_SYNCPOINT, NULL);
  CHECK(depth(h, o) == 1, "dropped syncpoint put pending until MQCMIT");
  MQCMIT(h, &cc, &rc);
  CHECK(rc == MQRC_NONE && depth(h, o) == 0, "dropped at MQCMIT (rc %d depth %d)", (int)rc, (int)depth(h, o));
  setenv("MQSTUB_DROP_PUT", "x", 1);        /* malformed: ignored */
  put_msg(h, o, "kept", 0, 0, NULL);
  CHECK(depth(h, o) == 1, "malformed MQSTUB_DROP_PUT ignored");
  unsetenv("MQSTUB_DROP_PUT");
  drain(h, o);

  setenv("MQSTUB_DUP_PUT", "1", 1);
  CHECK_RC(MQRC_NONE, put_msg(h, o, "d", 0, 0, &pmd), "duplicated put");
  CHECK(depth(h, o) == 2, "MQSTUB_DUP_PUT enqueued twice (depth %d)", (int)depth(h, o));
  for (int i = 0; i < 2; i++) {
    CHECK_RC(MQRC_NONE, get_msg(h, o, 0, 0, buf, sizeof buf, &gmd), "get copy");
    CHECK(strcmp(buf, "d") == 0 && memcmp(gmd.MsgId, pmd.MsgId, 24) == 0, "copy %d identical (%s)", i, buf);
  }
  put_msg(h, o, "once", 0, 0, NULL);
  CHECK(depth(h, o) == 1, "duplicates once only");
  drain(h, o);
  setenv("MQSTUB_DUP_PUT", "1", 1);
  put_msg(h, o, "txd", 0, MQPMO_SYNCPOINT, NULL);
  CHECK(depth(h, o) == 1, "copy not made before MQCMIT");
  MQCMIT(h, &cc, &rc);
  CHECK(depth(h, o) == 2, "copy made at MQCMIT (depth %d)", (int)depth(h, o));
  drain(h, o);
  setenv("MQSTUB_DUP_PUT", "1", 1);
  put_msg(h, o, "undone", 0, MQPMO_SYNCPOINT, NULL);
  MQBACK(h, &cc, &rc);
  CHECK(depth(h, o) == 0, "backout leaves neither (depth %d)", (int)depth(h, o));
  setenv("MQSTUB_DUP_PUT", "0", 1);         /* disarmed */
  put_msg(h, o, "plain", 0, 0, NULL);
  CHECK(depth(h, o) == 1, "MQSTUB_DUP_PUT=0 disarms");
  unsetenv("MQSTUB_DUP_PUT");
  drain(h, o);
  disc(&h);
}

struct worker { int id; int n; int errors; };

static void *worker(void *arg)
{
  struct worker *w = arg;
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.1", MQOO_OUTPUT | MQOO_INPUT_SHARED);
  char buf[32];
  for (int i = 0; i < w->n; i++) {
    int sync = i % 2;   /* alternate plain and unit-of-work traffic */
    MQLONG cc, rc;
    if (put_msg(h, o, "load", 0, sync ? MQPMO_SYNCPOINT : 0, NULL) != MQRC_NONE)
      w->errors++;
    if (sync)
      MQCMIT(h, &cc, &rc);
    if (get_msg(h, o, MQGMO_WAIT | (sync ? MQGMO_SYNCPOINT : 0), 5000, buf, sizeof buf, NULL) != MQRC_NONE)
      w->errors++;
    if (sync)
      MQCMIT(h, &cc, &rc);
  }
  disc(&h);
  return NULL;
}

static void test_concurrency(void)
{
  enum { N = 16 };
  pthread_t t[N];
  struct worker w[N];
  for (int i = 0; i < N; i++) {
    w[i] = (struct worker){ i, 500, 0 };
    pthread_create(&t[i], NULL, worker, &w[i]);
  }
  int errors = 0;
  for (int i = 0; i < N; i++) {
    pthread_join(t[i], NULL);
    errors += w[i].errors;
  }
  CHECK(errors == 0, "concurrent put/get errors: %d", errors);
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.1", MQOO_INQUIRE);
  CHECK(depth(h, o) == 0, "queue empty after workers (%d)", (int)depth(h, o));
  disc(&h);
}

int main(void)
{
  test_connect();
  test_round_trip_and_priority();
  test_syncpoint();
  test_wait();
  test_browse_and_select();
  test_inquire();
  test_properties();
  test_unsupported();
  test_faults();
  test_put_faults();
  test_concurrency();
  if (failures) {
    fprintf(stderr, "stubtest: %d of %d checks FAILED\n", failures, checks);
    return 1;
  }
  printf("stubtest: all %d checks passed\n", checks);
  return 0;
}
