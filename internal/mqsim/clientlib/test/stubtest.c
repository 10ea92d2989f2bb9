/*
 * stubtest.c -- self-test of libmqm_r.so through the plain C MQI, against a
 * running mqserver named by MQSERVER (CHANNEL/TCP/host(port)). Run by
 * `scripts/build-mqstub.sh --check`, which starts the server; exits
 * non-zero on any failure.
 *
 * The connection cases that need a misbehaving server (silent, closing,
 * sending garbage, refusing the queue manager) use a fake one in this
 * process; everything else goes to the real server.
 */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

/* ---- where the server is ---------------------------------------------- */

static char server_conname[128];  /* from MQSERVER */
static char server_mqserver[512];
static int dead_port;                                  /* nothing listens there */

/* A port nothing listens on: bound, then closed. */
static int closed_port(void)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  bind(fd, (struct sockaddr *)&a, sizeof a);
  getsockname(fd, (struct sockaddr *)&a, &len);
  close(fd);
  return ntohs(a.sin_port);
}

static void find_server(void)
{
  const char *v = getenv("MQSERVER");
  const char *s = v ? strrchr(v, '/') : NULL;
  if (!s) {
    fprintf(stderr, "stubtest: MQSERVER=CHANNEL/TCP/host(port) must name a running mqserver\n");
    exit(2);
  }
  snprintf(server_mqserver, sizeof server_mqserver, "%s", v);
  snprintf(server_conname, sizeof server_conname, "%s", s + 1);
  dead_port = closed_port();
}

typedef struct {
  const char *channel;
  const char *conname;       /* NULL: a dead entry, then the server */
  const char *user, *password;
  const char *cipher;        /* NULL: no TLS */
  const char *key_repository;
  const char *key_password;  /* MQSCO version 6 */
  MQLONG      hbint;         /* 0: the MQCD default */
  MQLONG      share;         /* MQCNO_HANDLE_SHARE_* */
} client_opts;

static MQLONG connect_with(const char *qmname, const client_opts *o, MQHCONN *h)
{
  MQCNO cno;
  MQCD cd;
  MQCSP csp;
  MQSCO sco;
  char name[MQ_Q_MGR_NAME_LENGTH], conname[MQ_CONN_NAME_LENGTH + 64];
  MQLONG cc, rc;
  memset(&cno, 0, sizeof cno);
  memset(&cd, 0, sizeof cd);
  memset(&csp, 0, sizeof csp);
  memset(&sco, 0, sizeof sco);
  memcpy(cno.StrucId, MQCNO_STRUC_ID, 4);
  cno.Version = MQCNO_VERSION_5;
  cno.Options = MQCNO_CLIENT_BINDING | (o->share ? o->share : MQCNO_HANDLE_SHARE_NO_BLOCK);
  cd.Version = MQCD_VERSION_11;
  cd.ChannelType = MQCHT_CLNTCONN;
  cd.TransportType = MQXPT_TCP;
  cd.HeartbeatInterval = o->hbint ? o->hbint : 300;
  cd.KeepAliveInterval = -1;         /* MQKAI_AUTO */
  fixed(cd.ChannelName, sizeof cd.ChannelName, o->channel ? o->channel : "DEV.APP.SVRCONN");
  /* By default the first entry has nothing listening: every connection
   * also proves that a ConnectionName list moves on to the next entry. */
  if (o->conname)
    snprintf(conname, sizeof conname, "%s", o->conname);
  else
    snprintf(conname, sizeof conname, "127.0.0.1(%d), %s", dead_port, server_conname);
  fixed(cd.ConnectionName, sizeof cd.ConnectionName, conname);
  if (o->cipher)
    fixed(cd.SSLCipherSpec, sizeof cd.SSLCipherSpec, o->cipher);
  cno.ClientConnPtr = &cd;
  if (o->key_repository || o->key_password) {
    memcpy(sco.StrucId, MQSCO_STRUC_ID, 4);
    sco.Version = MQSCO_VERSION_6;
    fixed(sco.KeyRepository, sizeof sco.KeyRepository, o->key_repository ? o->key_repository : "");
    if (o->key_password) {
      sco.KeyRepoPasswordPtr = (MQPTR)o->key_password;
      sco.KeyRepoPasswordLength = (MQLONG)strlen(o->key_password);
    }
    cno.SSLConfigPtr = &sco;
  }
  if (o->user) {
    memcpy(csp.StrucId, MQCSP_STRUC_ID, 4);
    csp.Version = MQCSP_VERSION_1;
    csp.AuthenticationType = MQCSP_AUTH_USER_ID_AND_PWD;
    csp.CSPUserIdPtr = (MQPTR)o->user;
    csp.CSPUserIdLength = (MQLONG)strlen(o->user);
    csp.CSPPasswordPtr = (MQPTR)o->password;
    csp.CSPPasswordLength = o->password ? (MQLONG)strlen(o->password) : 0;
    cno.SecurityParmsPtr = &csp;
  }
  fixed(name, sizeof name, qmname);
  MQCONNX(name, &cno, h, &cc, &rc);
  CHECK((cc == MQCC_OK) == (rc == MQRC_NONE), "MQCONNX cc/rc consistent (%d/%d)", (int)cc, (int)rc);
  return rc;
}

static MQLONG connect_client(const char *qmname, MQHCONN *h)
{
  client_opts o = { .user = "app", .password = "" };
  return connect_with(qmname, &o, h);
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

/* ---- a fake server, for what the real one never does ---------------------- */

typedef enum {
  FAKE_SILENT,     /* answers CONNECT (HBINT 1), then never answers again */
  FAKE_CLOSE,      /* answers CONNECT, then closes at the next request */
  FAKE_GARBAGE,    /* answers CONNECT, then sends a frame longer than allowed */
  FAKE_NO_QMGR,    /* answers CONNECT with 2059 */
} fake_mode;

typedef struct {
  int                lfd, port;
  _Atomic fake_mode  mode;
  pthread_t          thread;
} fake_server;

static fake_server fake;

static int read_full(int fd, unsigned char *p, size_t n)
{
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r <= 0)
      return -1;
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

/* Read a whole frame; returns its op or -1. */
static int read_frame(int fd)
{
  unsigned char hdr[8];
  if (read_full(fd, hdr, sizeof hdr) != 0)
    return -1;
  uint32_t len = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 24;
  unsigned char *body = malloc(len);
  int ok = body && read_full(fd, body, len - 4) == 0;
  free(body);
  return ok ? hdr[4] | hdr[5] << 8 : -1;
}

static void put_le32(unsigned char *p, uint32_t v)
{
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16);
  p[3] = (unsigned char)(v >> 24);
}

static void reply_connect(int fd, MQLONG cc, MQLONG rc)
{
  unsigned char f[8 + 8 + 4 + 6 + 4 + 24 + 4 + 4 + 4];
  unsigned char *p = f + 8;
  put_le32(p, (uint32_t)cc); p += 4;
  put_le32(p, (uint32_t)rc); p += 4;
  put_le32(p, 6); memcpy(p + 4, "FAKEQM", 6); p += 10;
  put_le32(p, 24); memset(p + 4, 'C', 24); p += 28;
  put_le32(p, 0); p += 4;                      /* qmgrIdentifier */
  put_le32(p, 4194304); p += 4;                /* maxMsgLength */
  put_le32(p, 1); p += 4;                      /* heartbeatInterval */
  put_le32(f, (uint32_t)(p - f - 4));
  f[4] = 1; f[5] = 0x80; f[6] = f[7] = 0;
  if (write(fd, f, (size_t)(p - f)) < 0)
    perror("fake server write");
}

static void *fake_serve(void *arg)
{
  (void)arg;
  for (;;) {
    int fd = accept(fake.lfd, NULL, NULL);
    if (fd < 0)
      return NULL;
    fake_mode mode = fake.mode;
    if (read_frame(fd) == 1) {
      if (mode == FAKE_NO_QMGR) {
        reply_connect(fd, MQCC_FAILED, MQRC_Q_MGR_NOT_AVAILABLE);
      } else {
        reply_connect(fd, MQCC_OK, MQRC_NONE);
        if (read_frame(fd) > 0 && mode == FAKE_GARBAGE) {
          unsigned char f[8] = { 0xff, 0xff, 0xff, 0x7f, 0, 0x80, 0, 0 };
          if (write(fd, f, sizeof f) < 0)
            perror("fake server write");
        }
        if (mode == FAKE_SILENT || mode == FAKE_GARBAGE)
          while (read_frame(fd) > 0)   /* until the client gives up and closes */
            ;
      }
    }
    close(fd);
  }
}

static void fake_start(void)
{
  fake.lfd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  if (bind(fake.lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fake.lfd, 8) != 0 ||
      getsockname(fake.lfd, (struct sockaddr *)&a, &len) != 0) {
    perror("fake server");
    exit(2);
  }
  fake.port = ntohs(a.sin_port);
  pthread_create(&fake.thread, NULL, fake_serve, NULL);
}

static MQLONG connect_fake(fake_mode mode, MQHCONN *h)
{
  char conname[64];
  snprintf(conname, sizeof conname, "127.0.0.1(%d)", fake.port);
  fake.mode = mode;
  client_opts o = { .conname = conname, .hbint = 1 };
  return connect_with("FAKEQM", &o, h);
}

/* ---- tests: connecting ---------------------------------------------------- */

static void test_connect(void)
{
  MQHCONN h;
  MQLONG cc, rc;
  CHECK_RC(MQRC_Q_MGR_NOT_AVAILABLE, connect_client("NOSUCHQM", &h), "listener up, no such queue manager");
  CHECK(h == MQHC_UNUSABLE_HCONN, "failed MQCONNX leaves an unusable handle");
  CHECK_RC(MQRC_NONE, connect_client("", &h), "blank name = the listener's queue manager");
  disc(&h);
  CHECK_RC(MQRC_NONE, connect_client("*QM1", &h), "*QM1");
  disc(&h);
  MQCONN("QM1", &h, &cc, &rc);       /* MQSERVER; NUL-terminated short name */
  CHECK_RC(MQRC_NONE, rc, "MQCONN through MQSERVER");
  disc(&h);
  MQDISC(&h, &cc, &rc);
  CHECK_RC(MQRC_HCONN_ERROR, rc, "MQDISC twice");
  MQCMIT(12345, &cc, &rc);
  CHECK_RC(MQRC_HCONN_ERROR, rc, "bad hconn");

  client_opts unknown = { .channel = "NO.SUCH.SVRCONN" };
  CHECK_RC(MQRC_UNKNOWN_CHANNEL_NAME, connect_with("QM1", &unknown, &h), "unknown channel");
  client_opts admin = { .channel = "DEV.ADMIN.SVRCONN", .user = "admin", .password = "wrong" };
  CHECK_RC(MQRC_NOT_AUTHORIZED, connect_with("QM1", &admin, &h), "bad password");

  char conname[200];
  snprintf(conname, sizeof conname, "127.0.0.1(%d)", dead_port);
  client_opts dead = { .conname = conname };
  CHECK_RC(MQRC_HOST_NOT_AVAILABLE, connect_with("QM1", &dead, &h), "nothing listening");
  const char *malformed[] = { "localhost(14x4)", "(1414)", "host(99999)", "a(1),,b(2)", "host(1414", "" };
  for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
    client_opts bad = { .conname = malformed[i] };
    CHECK_RC(MQRC_HOST_NOT_AVAILABLE, connect_with("QM1", &bad, &h), malformed[i]);
  }

  /* A 2059 from one listener moves on to the next entry. */
  fake.mode = FAKE_NO_QMGR;
  snprintf(conname, sizeof conname, "127.0.0.1(%d),%s", fake.port, server_conname);
  client_opts refused_first = { .conname = conname };
  CHECK_RC(MQRC_NONE, connect_with("QM1", &refused_first, &h), "2059, then the next entry");
  disc(&h);

  /* MQSERVER, when no MQCD is given; nothing at all is 2058. */
  setenv("MQSERVER", "DEV.APP.SVRCONN/UDP/localhost(1414)", 1);
  MQCONN("QM1", &h, &cc, &rc);
  CHECK_RC(MQRC_Q_MGR_NAME_ERROR, rc, "MQSERVER with another transport");
  setenv("MQSERVER", "DEV.APP.SVRCONN/TCP/localhost(x)", 1);
  MQCONN("QM1", &h, &cc, &rc);
  CHECK_RC(MQRC_HOST_NOT_AVAILABLE, rc, "MQSERVER with a malformed ConnectionName");
  unsetenv("MQSERVER");
  MQCONN("QM1", &h, &cc, &rc);
  CHECK_RC(MQRC_Q_MGR_NAME_ERROR, rc, "no channel definition");
  char quoted[600];
  snprintf(quoted, sizeof quoted, "DEV.APP.SVRCONN/tcp/'%s'", server_conname);
  setenv("MQSERVER", quoted, 1);
  MQCONN("QM1", &h, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "MQSERVER with a quoted ConnectionName");
  disc(&h);
  setenv("MQSERVER", server_mqserver, 1);
}

/* A connection lost, a server that stops answering, a frame too long:
 * 2009 on that call and every later one; MQDISC succeeds and frees it. */
static void test_connection_lost(void)
{
  MQHCONN h;
  MQHOBJ o;
  MQLONG cc, rc;
  CHECK_RC(MQRC_NONE, connect_fake(FAKE_CLOSE, &h), "connect to the fake server");
  CHECK_RC(MQRC_CONNECTION_BROKEN, open_q(h, "Q", MQOO_OUTPUT, &o), "connection closed during the call");
  CHECK_RC(MQRC_CONNECTION_BROKEN, put_msg(h, 1, "x", 0, 0, NULL), "and on every later call");
  MQCMIT(h, &cc, &rc);
  CHECK_RC(MQRC_CONNECTION_BROKEN, rc, "MQCMIT after the loss");
  disc(&h);
  MQDISC(&h, &cc, &rc);
  CHECK_RC(MQRC_HCONN_ERROR, rc, "the handle is freed");

  CHECK_RC(MQRC_NONE, connect_fake(FAKE_GARBAGE, &h), "connect to the fake server");
  MQCMIT(h, &cc, &rc);
  CHECK_RC(MQRC_CONNECTION_BROKEN, rc, "a reply frame over the limit");
  disc(&h);

  /* HBINT 1 on both sides: a reply is awaited 2 s, then the call fails. */
  CHECK_RC(MQRC_NONE, connect_fake(FAKE_SILENT, &h), "connect to the fake server");
  int64_t t0 = now_ms();
  MQCMIT(h, &cc, &rc);
  int64_t el = now_ms() - t0;
  CHECK(rc == MQRC_CONNECTION_BROKEN && el >= 1900 && el < 10000, "silent server: rc %d after %ld ms",
        (int)rc, (long)el);
  disc(&h);

  /* A waiting MQGET is bounded by its wait interval plus that. */
  CHECK_RC(MQRC_NONE, connect_fake(FAKE_SILENT, &h), "connect to the fake server");
  char buf[16];
  t0 = now_ms();
  rc = get_msg(h, 1, MQGMO_WAIT, 1000, buf, sizeof buf, NULL);
  el = now_ms() - t0;
  CHECK(rc == MQRC_CONNECTION_BROKEN && el >= 2900 && el < 12000, "silent server, MQGET wait 1 s: rc %d after %ld ms",
        (int)rc, (long)el);
  disc(&h);
}

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
    perror(path);
    exit(2);
  }
}

/* A CipherSpec makes the client read its key repository before it
 * connects, as IBM's client does: one it cannot read, or that is not
 * PKCS #12 (a CMS .kdb), or without its password, is 2381. Handshakes with
 * a server that has a certificate are the Go tests' (internal/mq/ibmmq
 * tls_test.go, with IBM's amqsconntls). */
static void test_tls(void)
{
  char dir[] = "/tmp/stubtest-tls-XXXXXX", stem[64], path[80];
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    exit(2);
  }
  snprintf(stem, sizeof stem, "%s/key", dir);
  MQHCONN h;
  client_opts o = { .cipher = "ANY_TLS12_OR_HIGHER" };
  CHECK_RC(MQRC_KEY_REPOSITORY_ERROR, connect_with("QM1", &o, &h), "CipherSpec without a key repository");
  o.key_repository = stem;
  CHECK_RC(MQRC_KEY_REPOSITORY_ERROR, connect_with("QM1", &o, &h), "missing key repository");
  snprintf(path, sizeof path, "%s.kdb", stem);
  write_file(path, "kdb");
  CHECK_RC(MQRC_KEY_REPOSITORY_ERROR, connect_with("QM1", &o, &h), ".kdb without its stash");
  snprintf(path, sizeof path, "%s.sth", stem);
  write_file(path, "\x85\x94\x86\x86\xf5");   /* "pass", stashed */
  CHECK_RC(MQRC_KEY_REPOSITORY_ERROR, connect_with("QM1", &o, &h), "a .kdb that is not PKCS #12 (CMS)");
  unlink(path);
  snprintf(path, sizeof path, "%s.kdb", stem);
  unlink(path);
  snprintf(path, sizeof path, "%s.p12", stem);
  write_file(path, "p12");
  CHECK_RC(MQRC_KEY_REPOSITORY_ERROR, connect_with("QM1", &o, &h), ".p12 without a password");
  o.key_password = "changeit";
  CHECK_RC(MQRC_KEY_REPOSITORY_ERROR, connect_with("QM1", &o, &h), "a .p12 that is not PKCS #12");
  unlink(path);
  client_opts unknown = { .cipher = "NOT_A_CIPHERSPEC", .key_repository = stem };
  CHECK_RC(MQRC_SSL_INITIALIZATION_ERROR, connect_with("QM1", &unknown, &h), "an unknown CipherSpec");
  client_opts no_cipher = { .key_repository = "/no/such/stem" };
  CHECK_RC(MQRC_NONE, connect_with("QM1", &no_cipher, &h), "a key repository without a CipherSpec is not read");
  disc(&h);
  rmdir(dir);
}

static MQLONG connect_ccdt(const char *qmname, const char *url, MQHCONN *h)
{
  MQCNO cno;
  MQLONG cc, rc;
  char name[MQ_Q_MGR_NAME_LENGTH];
  memset(&cno, 0, sizeof cno);
  memcpy(cno.StrucId, MQCNO_STRUC_ID, 4);
  cno.Version = MQCNO_VERSION_6;
  cno.Options = MQCNO_HANDLE_SHARE_NO_BLOCK;
  cno.CCDTUrlPtr = (PMQCHAR)url;
  cno.CCDTUrlLength = (MQLONG)strlen(url);
  fixed(name, sizeof name, qmname);
  MQCONNX(name, &cno, h, &cc, &rc);
  return rc;
}

/* IBM's JSON CCDT: channels for the queue manager, in alphabetical order. */
static void test_ccdt(void)
{
  char dir[] = "/tmp/stubtest-ccdt-XXXXXX", path[64], url[80], text[2048];
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    exit(2);
  }
  char host[256];
  int port = 0;
  if (sscanf(server_conname, "%255[^(](%d)", host, &port) != 2) {
    fprintf(stderr, "stubtest: cannot read host(port) from %s\n", server_conname);
    exit(2);
  }
  snprintf(path, sizeof path, "%s/ccdt.json", dir);
  snprintf(url, sizeof url, "file://%s", path);
  /* B.DEAD sorts before DEV.APP.SVRCONN and has nothing listening. */
  snprintf(text, sizeof text,
           "{ \"channel\": [\n"
           "  { \"name\": \"DEV.APP.SVRCONN\", \"type\": \"clientConnection\",\n"
           "    \"clientConnection\": { \"connection\": [ { \"host\": \"%s\", \"port\": %d } ],\n"
           "                            \"queueManager\": \"QM1\" } },\n"
           "  { \"name\": \"B.DEAD\", \"type\": \"clientConnection\",\n"
           "    \"clientConnection\": { \"connection\": [ { \"host\": \"127.0.0.1\", \"port\": %d } ],\n"
           "                            \"queueManager\": \"QM1\" },\n"
           "    \"connectionManagement\": { \"heartbeatInterval\": 300 } },\n"
           "  { \"name\": \"OTHER\", \"type\": \"clientConnection\",\n"
           "    \"clientConnection\": { \"connection\": [ { \"host\": \"127.0.0.1\", \"port\": %d } ],\n"
           "                            \"queueManager\": \"QM9\" } }\n"
           "] }\n",
           host, port, dead_port, dead_port);
  write_file(path, text);
  MQHCONN h;
  CHECK_RC(MQRC_NONE, connect_ccdt("QM1", url, &h), "CCDT URL in MQCNO");
  disc(&h);
  CHECK_RC(MQRC_NONE, connect_ccdt("*QM1", url, &h), "CCDT, *QM1");
  disc(&h);
  CHECK_RC(MQRC_Q_MGR_NAME_ERROR, connect_ccdt("QM2", url, &h), "no channel for the queue manager");
  CHECK_RC(MQRC_HOST_NOT_AVAILABLE, connect_ccdt("QM9", url, &h), "the only channel has nothing listening");
  CHECK_RC(MQRC_CCDT_URL_ERROR, connect_ccdt("QM1", "http://example.invalid/ccdt.json", &h), "not a file URL");

  unsetenv("MQSERVER");
  setenv("MQCCDTURL", url, 1);
  MQLONG cc, rc;
  MQCONN("QM1", &h, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "MQCCDTURL");
  disc(&h);
  unsetenv("MQCCDTURL");
  setenv("MQSERVER", server_mqserver, 1);

  write_file(path, "{ \"channel\": [ { \"name\": ");
  CHECK_RC(MQRC_CLIENT_CONN_ERROR, connect_ccdt("QM1", url, &h), "malformed JSON");
  unlink(path);
  CHECK_RC(MQRC_CLIENT_CONN_ERROR, connect_ccdt("QM1", url, &h), "missing file");
  rmdir(dir);
}

struct waiter { MQHCONN h; MQHOBJ o; MQLONG rc; };

static void *wait_get(void *arg)
{
  struct waiter *w = arg;
  char buf[16];
  w->rc = get_msg(w->h, w->o, MQGMO_WAIT, 1000, buf, sizeof buf, NULL);
  return NULL;
}

/* One call at a time per connection: with HANDLE_SHARE_NO_BLOCK a second
 * thread fails at once with 2219, with BLOCK it waits its turn. */
static void test_handle_sharing(void)
{
  for (int block = 0; block < 2; block++) {
    MQHCONN h;
    client_opts opts = { .user = "app", .share = block ? MQCNO_HANDLE_SHARE_BLOCK : MQCNO_HANDLE_SHARE_NO_BLOCK };
    CHECK_RC(MQRC_NONE, connect_with("QM1", &opts, &h), "connect");
    MQHOBJ o = open_ok(h, "DEV.QUEUE.3", MQOO_INPUT_SHARED | MQOO_INQUIRE);
    drain(h, o);
    struct waiter w = { h, o, -1 };
    pthread_t t;
    pthread_create(&t, NULL, wait_get, &w);
    usleep(300 * 1000);
    MQLONG sel = MQIA_CURRENT_Q_DEPTH, v, cc, rc;
    int64_t t0 = now_ms();
    MQINQ(h, o, 1, &sel, 1, &v, 0, NULL, &cc, &rc);
    int64_t el = now_ms() - t0;
    pthread_join(t, NULL);
    CHECK_RC(MQRC_NO_MSG_AVAILABLE, w.rc, "the waiting get");
    if (block)
      CHECK(rc == MQRC_NONE && el >= 400, "BLOCK waits for the get (rc %d, %ld ms)", (int)rc, (long)el);
    else
      CHECK(rc == MQRC_CALL_IN_PROGRESS && el < 300, "NO_BLOCK fails at once (rc %d, %ld ms)", (int)rc, (long)el);
    disc(&h);
  }
}

/* ---- tests: the MQI through the server -------------------------------------- */

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
  CHECK_RC(MQRC_DATA_LENGTH_ERROR, rc, "longer than the channel's MAXMSGL (4 MiB)");

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

/* MQOPEN of a model queue names the dynamic queue it created in the
   MQOD's ObjectName (and ResolvedQName), and MQCLOSE deletes it. */
static void test_model_queue(void)
{
  MQHCONN h = conn();
  MQOD od = {MQOD_DEFAULT};
  MQHOBJ o, w;
  MQLONG cc, rc;
  od.Version = MQOD_VERSION_3;
  fixed(od.ObjectName, sizeof od.ObjectName, "DEV.APP.MODEL.QUEUE");
  fixed(od.DynamicQName, sizeof od.DynamicQName, "STUB.*");
  MQOPEN(h, &od, MQOO_INPUT_EXCLUSIVE, &o, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "open the model queue");
  char name[MQ_Q_NAME_LENGTH + 1];
  memcpy(name, od.ObjectName, MQ_Q_NAME_LENGTH);
  name[MQ_Q_NAME_LENGTH] = '\0';
  CHECK(memcmp(name, "STUB.", 5) == 0 && name[21] == ' ' && name[20] != ' ',
        "ObjectName %.48s: want STUB. and 16 unique characters", name);
  CHECK(memcmp(od.ResolvedQName, od.ObjectName, MQ_Q_NAME_LENGTH) == 0, "ResolvedQName is the dynamic queue");
  name[21] = '\0';
  w = open_ok(h, name, MQOO_OUTPUT);
  CHECK_RC(MQRC_NONE, put_msg(h, w, "reply", 0, 0, NULL), "put to the dynamic queue");
  char buf[16];
  CHECK_RC(MQRC_NONE, get_msg(h, o, 0, 0, buf, sizeof buf, NULL), "get from the dynamic queue");
  MQCLOSE(h, &o, MQCO_NONE, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "close the creating handle");
  CHECK_RC(MQRC_Q_DELETED, put_msg(h, w, "late", 0, 0, NULL), "put after the queue was deleted");
  MQCLOSE(h, &w, MQCO_NONE, &cc, &rc);
  CHECK_RC(MQRC_UNKNOWN_OBJECT_NAME, open_q(h, name, MQOO_OUTPUT, &w), "open the deleted queue");
  disc(&h);
}

static MQCHARV charv(const char *s)
{
  MQCHARV v = {MQCHARV_DEFAULT};
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
  MQCHARV empty = charv("");
  MQINQMP(h, hg, &impo, &empty, &pd, &type, sizeof value, value, &dlen, &cc, &rc);
  CHECK_RC(MQRC_PROPERTY_NAME_LENGTH_ERR, rc, "MQINQMP of an empty name");
  MQDLTMH(h, &hg, &dmho, &cc, &rc);
  MQDLTMH(h, &hg, &dmho, &cc, &rc);
  CHECK_RC(MQRC_HMSG_ERROR, rc, "MQDLTMH twice");
  disc(&h);
}

/* A handle reused for several puts sends its properties as they are at each
 * put: the library keeps the last put's encoding only while they are
 * unchanged. */
static void test_properties_change_between_puts(void)
{
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.2", MQOO_INPUT_SHARED | MQOO_OUTPUT);
  MQCMHO cmho = { MQCMHO_STRUC_ID, MQCMHO_VERSION_1, MQCMHO_DEFAULT_VALIDATION };
  MQSMPO smpo = { MQSMPO_STRUC_ID, MQSMPO_VERSION_1, MQSMPO_SET_FIRST, MQENC_NATIVE, MQCCSI_APPL };
  MQPD pd = { MQPD_STRUC_ID, MQPD_VERSION_1, MQPD_NONE, MQPD_SUPPORT_OPTIONAL, MQPD_NO_CONTEXT, MQCOPY_DEFAULT };
  MQDMPO dmpo = { MQDMPO_STRUC_ID, MQDMPO_VERSION_1, MQDMPO_DEL_FIRST };
  MQDMHO dmho = { MQDMHO_STRUC_ID, MQDMHO_VERSION_1, MQDMHO_NONE };
  MQHMSG hp, hg;
  MQLONG cc, rc;
  drain(h, o);

  MQCRTMH(h, &cmho, &hp, &cc, &rc);
  MQCHARV name = charv("step");
  /* The values each put carries: set, unchanged, replaced, deleted. */
  const char *want[] = { "one", "one", "two", NULL };
  for (int i = 0; i < 4; i++) {
    if (i == 0 || i == 2)
      MQSETMP(h, hp, &smpo, &name, &pd, MQTYPE_STRING, MQVL_NULL_TERMINATED, (MQPTR)want[i], &cc, &rc);
    if (i == 3)
      MQDLTMP(h, hp, &dmpo, &name, &cc, &rc);
    CHECK(rc == MQRC_NONE, "change before put %d: rc %d", i, (int)rc);
    MQMD md = new_md();
    MQPMO pmo = new_pmo(0);
    pmo.OriginalMsgHandle = hp;
    MQPUT(h, o, &md, &pmo, 1, "p", &cc, &rc);
    CHECK(rc == MQRC_NONE, "put %d: rc %d", i, (int)rc);
  }
  MQDLTMH(h, &hp, &dmho, &cc, &rc);

  for (int i = 0; i < 4; i++) {
    MQCRTMH(h, &cmho, &hg, &cc, &rc);
    MQGMO gmo = new_gmo(MQGMO_PROPERTIES_IN_HANDLE, 0);
    gmo.MsgHandle = hg;
    MQMD md = new_md();
    char buf[8], value[16];
    MQLONG len, type = 0, dlen = 0;
    MQGET(h, o, &md, &gmo, sizeof buf, buf, &len, &cc, &rc);
    CHECK(rc == MQRC_NONE, "get %d: rc %d", i, (int)rc);
    MQIMPO impo;
    memset(&impo, 0, sizeof impo);
    memcpy(impo.StrucId, MQIMPO_STRUC_ID, 4);
    impo.Version = MQIMPO_VERSION_1;
    impo.Options = MQIMPO_INQ_FIRST;
    MQINQMP(h, hg, &impo, &name, &pd, &type, sizeof value, value, &dlen, &cc, &rc);
    if (want[i])
      CHECK(rc == MQRC_NONE && dlen == (MQLONG)strlen(want[i]) && memcmp(value, want[i], (size_t)dlen) == 0,
            "message %d carries step=%s (rc %d, %d bytes)", i, want[i], (int)rc, (int)dlen);
    else
      CHECK(rc == MQRC_PROPERTY_NOT_AVAILABLE, "message %d carries no step: rc %d", i, (int)rc);
    MQDLTMH(h, &hg, &dmho, &cc, &rc);
  }
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

/* MQPMO_ASYNC_RESPONSE: no reply per put; the client makes the MsgId;
 * MQSTAT reports the counts and the first failure, then resets them. */
static void test_async_put(void)
{
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.MAXDEPTH25", MQOO_OUTPUT | MQOO_INPUT_SHARED | MQOO_INQUIRE);
  MQLONG cc, rc;
  drain(h, o);
  MQMD first;
  CHECK_RC(MQRC_NONE, put_msg(h, o, "async", 0, MQPMO_ASYNC_RESPONSE | MQPMO_NEW_MSG_ID, &first),
           "async put");
  CHECK(memcmp(first.MsgId, "AMQ QM1         ", 16) == 0, "async put's MsgId made by the client");
  for (int i = 1; i < 27; i++)
    put_msg(h, o, "async", 0, MQPMO_ASYNC_RESPONSE, NULL);
  MQSTS sts = {MQSTS_DEFAULT};
  MQSTAT(h, MQSTAT_TYPE_ASYNC_ERROR, &sts, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "MQSTAT");
  CHECK(sts.PutSuccessCount == 25 && sts.PutFailureCount == 2 && sts.PutWarningCount == 0,
        "MQSTAT counts %d/%d/%d, want 25/0/2", (int)sts.PutSuccessCount, (int)sts.PutWarningCount,
        (int)sts.PutFailureCount);
  CHECK(sts.CompCode == MQCC_FAILED && sts.Reason == MQRC_Q_FULL &&
        strncmp(sts.ObjectName, "DEV.MAXDEPTH25 ", 15) == 0, "MQSTAT first error %d %d %.20s",
        (int)sts.CompCode, (int)sts.Reason, sts.ObjectName);
  char buf[16];
  MQMD got;
  CHECK_RC(MQRC_NONE, get_msg(h, o, 0, 0, buf, sizeof buf, &got), "get the first async put");
  CHECK(memcmp(got.MsgId, first.MsgId, sizeof got.MsgId) == 0, "stored under the client's MsgId");
  MQSTAT(h, MQSTAT_TYPE_ASYNC_ERROR, &sts, &cc, &rc);
  CHECK(rc == MQRC_NONE && sts.PutSuccessCount == 0 && sts.PutFailureCount == 0 && sts.Reason == MQRC_NONE,
        "MQSTAT reset the status");
  MQSTAT(h, 42, &sts, &cc, &rc);
  CHECK_RC(MQRC_STAT_TYPE_ERROR, rc, "MQSTAT of an unknown type");
  memcpy(sts.StrucId, "XXXX", 4);
  MQSTAT(h, MQSTAT_TYPE_ASYNC_ERROR, &sts, &cc, &rc);
  CHECK_RC(MQRC_STS_ERROR, rc, "MQSTAT with a bad MQSTS");
  drain(h, o);
  disc(&h);
}

/* MQSET of what IBM allows, seen by MQINQ and enforced on MQPUT. */
static void test_set(void)
{
  MQHCONN h = conn();
  MQHOBJ o = open_ok(h, "DEV.QUEUE.3", MQOO_SET | MQOO_INQUIRE | MQOO_OUTPUT);
  MQLONG cc, rc;
  MQLONG sel[3] = {MQIA_INHIBIT_PUT, MQCA_TRIGGER_DATA, MQIA_TRIGGER_DEPTH};
  MQLONG ints[2] = {MQQA_PUT_INHIBITED, 5};
  MQCHAR data[MQ_TRIGGER_DATA_LENGTH];
  fixed(data, sizeof data, "stubtest");
  MQSET(h, o, 3, sel, 2, ints, sizeof data, data, &cc, &rc);
  CHECK_RC(MQRC_NONE, rc, "MQSET");
  CHECK_RC(MQRC_PUT_INHIBITED, put_msg(h, o, "refused", 0, 0, NULL), "put to a put-inhibited queue");
  MQLONG got[2] = {0, 0};
  MQCHAR gotData[MQ_TRIGGER_DATA_LENGTH];
  MQINQ(h, o, 3, sel, 2, got, sizeof gotData, gotData, &cc, &rc);
  CHECK(rc == MQRC_NONE && got[0] == MQQA_PUT_INHIBITED && got[1] == 5 &&
        memcmp(gotData, data, sizeof data) == 0, "MQINQ after MQSET (%d %d %d)", (int)rc, (int)got[0], (int)got[1]);
  ints[0] = MQQA_PUT_ALLOWED;
  MQSET(h, o, 1, sel, 1, ints, 0, NULL, &cc, &rc);
  CHECK_RC(MQRC_NONE, put_msg(h, o, "allowed", 0, 0, NULL), "put after MQSET allowed it");
  MQSET(h, o, -1, sel, 1, ints, 0, NULL, &cc, &rc);
  CHECK_RC(MQRC_SELECTOR_COUNT_ERROR, rc, "MQSET SelectorCount -1");
  MQLONG maxdepth = MQIA_MAX_Q_DEPTH;
  MQSET(h, o, 1, &maxdepth, 1, ints, 0, NULL, &cc, &rc);
  CHECK_RC(MQRC_SELECTOR_ERROR, rc, "MQSET of MAXDEPTH");
  MQHOBJ inq = open_ok(h, "DEV.QUEUE.3", MQOO_INQUIRE | MQOO_INPUT_SHARED);
  MQSET(h, inq, 1, sel, 1, ints, 0, NULL, &cc, &rc);
  CHECK_RC(MQRC_NOT_OPEN_FOR_SET, rc, "MQSET without MQOO_SET");
  drain(h, inq);
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
  find_server();
  fake_start();
  test_connect();
  test_connection_lost();
  test_tls();
  test_ccdt();
  test_handle_sharing();
  test_round_trip_and_priority();
  test_syncpoint();
  test_wait();
  test_browse_and_select();
  test_inquire();
  test_model_queue();
  test_properties();
  test_properties_change_between_puts();
  test_unsupported();
  test_async_put();
  test_set();
  test_concurrency();
  if (failures) {
    fprintf(stderr, "stubtest: %d of %d checks FAILED\n", failures, checks);
    return 1;
  }
  printf("stubtest: all %d checks passed\n", checks);
  return 0;
}
