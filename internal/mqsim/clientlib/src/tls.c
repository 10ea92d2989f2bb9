/*
 * tls.c -- TLS on channels with a CipherSpec, with OpenSSL: the key
 * repository, IBM's CipherSpec names, the client certificate chosen by
 * label, the server's certificate checked against the repository and the
 * channel's SSLPEER, and reads and writes through the TLS connection.
 *
 * The key repository is PKCS #12, as IBM MQ 9.3 and later clients read
 * .p12 files. IBM's .kdb (CMS) format is not public: a .kdb must hold
 * PKCS #12 too, and anything else is MQRC_KEY_REPOSITORY_ERROR, as from
 * IBM's client for a repository it cannot read. The password comes from
 * MQSCO KeyRepoPassword, else MQKEYRPWD, else the stash file stem.sth,
 * read as GSKit's classic stash: the password's bytes each XORed with
 * 0xF5, ended by a byte that decodes to NUL.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "internal.h"

#define KEY_REPO_MAX_PASSWORD 256
#define STASH_MAX_BYTES       1024
#define DEFAULT_LABEL_PREFIX  "ibmwebspheremq"

struct mqs_tls {
  SSL_CTX  *ctx;          /* trusts the repository's CA certificates */
  EVP_PKEY *key;          /* the personal certificate's key; NULL: none */
  X509     *cert;         /* the personal certificate; NULL: none */
  char      sco_label[MQ_CERT_LABEL_LENGTH + 1]; /* MQSCO CertificateLabel */
};

/* ---- CipherSpecs ------------------------------------------------------ */

/* IBM MQ's CipherSpec names for TLS 1.2 and 1.3 that both OpenSSL (here)
 * and Go's crypto/tls (mqserver, tls.go, the same table) implement. */
typedef struct {
  const char *name;
  int         min_version, max_version;
  const char *openssl;    /* a TLS 1.2 cipher or TLS 1.3 suite; NULL: any of the versions' */
} cipher_spec;

/* Every TLS 1.2 suite a CipherSpec below names, for the alias CipherSpecs. */
#define TLS12_SUITES                                                                           \
  "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"  \
  "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"    \
  "ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA256:AES128-GCM-SHA256:AES256-GCM-SHA384:"    \
  "AES128-SHA256"

static const cipher_spec cipher_specs[] = {
  /* IBM's ANY also allows older protocols; this client speaks TLS 1.2 at the least. */
  { "ANY", TLS1_2_VERSION, TLS1_3_VERSION, NULL },
  { "ANY_TLS12", TLS1_2_VERSION, TLS1_2_VERSION, NULL },
  { "ANY_TLS12_OR_HIGHER", TLS1_2_VERSION, TLS1_3_VERSION, NULL },
  { "ANY_TLS13", TLS1_3_VERSION, TLS1_3_VERSION, NULL },
  { "ANY_TLS13_OR_HIGHER", TLS1_3_VERSION, TLS1_3_VERSION, NULL },
  { "TLS_AES_128_GCM_SHA256", TLS1_3_VERSION, TLS1_3_VERSION, "TLS_AES_128_GCM_SHA256" },
  { "TLS_AES_256_GCM_SHA384", TLS1_3_VERSION, TLS1_3_VERSION, "TLS_AES_256_GCM_SHA384" },
  { "TLS_CHACHA20_POLY1305_SHA256", TLS1_3_VERSION, TLS1_3_VERSION, "TLS_CHACHA20_POLY1305_SHA256" },
  { "ECDHE_ECDSA_AES_128_CBC_SHA256", TLS1_2_VERSION, TLS1_2_VERSION, "ECDHE-ECDSA-AES128-SHA256" },
  { "ECDHE_ECDSA_AES_128_GCM_SHA256", TLS1_2_VERSION, TLS1_2_VERSION, "ECDHE-ECDSA-AES128-GCM-SHA256" },
  { "ECDHE_ECDSA_AES_256_GCM_SHA384", TLS1_2_VERSION, TLS1_2_VERSION, "ECDHE-ECDSA-AES256-GCM-SHA384" },
  { "ECDHE_ECDSA_CHACHA20_POLY1305_SHA256", TLS1_2_VERSION, TLS1_2_VERSION, "ECDHE-ECDSA-CHACHA20-POLY1305" },
  { "ECDHE_RSA_AES_128_CBC_SHA256", TLS1_2_VERSION, TLS1_2_VERSION, "ECDHE-RSA-AES128-SHA256" },
  { "ECDHE_RSA_AES_128_GCM_SHA256", TLS1_2_VERSION, TLS1_2_VERSION, "ECDHE-RSA-AES128-GCM-SHA256" },
  { "ECDHE_RSA_AES_256_GCM_SHA384", TLS1_2_VERSION, TLS1_2_VERSION, "ECDHE-RSA-AES256-GCM-SHA384" },
  { "ECDHE_RSA_CHACHA20_POLY1305_SHA256", TLS1_2_VERSION, TLS1_2_VERSION, "ECDHE-RSA-CHACHA20-POLY1305" },
  { "TLS_RSA_WITH_AES_128_CBC_SHA256", TLS1_2_VERSION, TLS1_2_VERSION, "AES128-SHA256" },
  { "TLS_RSA_WITH_AES_128_GCM_SHA256", TLS1_2_VERSION, TLS1_2_VERSION, "AES128-GCM-SHA256" },
  { "TLS_RSA_WITH_AES_256_GCM_SHA384", TLS1_2_VERSION, TLS1_2_VERSION, "AES256-GCM-SHA384" },
};

static const cipher_spec *find_cipher_spec(const char *name)
{
  for (size_t i = 0; i < sizeof cipher_specs / sizeof cipher_specs[0]; i++)
    if (strcmp(cipher_specs[i].name, name) == 0)
      return &cipher_specs[i];
  return NULL;
}

/* ---- distinguished-name patterns (SSLPEER) ----------------------------- */

static const struct { const char *name; int nid; } dn_attributes[] = {
  { "CN", NID_commonName }, { "T", NID_title }, { "OU", NID_organizationalUnitName },
  { "O", NID_organizationName }, { "L", NID_localityName }, { "ST", NID_stateOrProvinceName },
  { "SP", NID_stateOrProvinceName }, { "S", NID_stateOrProvinceName }, { "C", NID_countryName },
  { "SERIALNUMBER", NID_serialNumber }, { "STREET", NID_streetAddress }, { "PC", NID_postalCode },
  { "POSTALCODE", NID_postalCode }, { "DNQ", NID_dnQualifier }, { "DNQUALIFIER", NID_dnQualifier },
  { "MAIL", NID_pkcs9_emailAddress }, { "E", NID_pkcs9_emailAddress }, { "DC", NID_domainComponent },
  { "UID", NID_userId }, { "USERID", NID_userId },
};

static void trim(const char **s, const char **e)
{
  while (*s < *e && isspace((unsigned char)**s))
    (*s)++;
  while (*e > *s && isspace((unsigned char)(*e)[-1]))
    (*e)--;
}

/* The NID of an attribute name, or NID_undef. */
static int dn_nid(const char *s, size_t n)
{
  for (size_t i = 0; i < sizeof dn_attributes / sizeof dn_attributes[0]; i++)
    if (strlen(dn_attributes[i].name) == n && strncasecmp(dn_attributes[i].name, s, n) == 0)
      return dn_attributes[i].nid;
  return NID_undef;
}

/* The k-th value (from the CN end, as IBM shows names) of nid in name,
 * UTF-8, to be freed with OPENSSL_free; NULL when there is none. */
static unsigned char *dn_value(const X509_NAME *name, int nid, int k, int *len)
{
  for (int i = X509_NAME_entry_count(name) - 1; i >= 0; i--) {
    const X509_NAME_ENTRY *e = X509_NAME_get_entry(name, i);
    if (OBJ_obj2nid(X509_NAME_ENTRY_get_object(e)) != nid || k-- > 0)
      continue;
    unsigned char *v = NULL;
    *len = ASN1_STRING_to_UTF8(&v, X509_NAME_ENTRY_get_data(e));
    return *len >= 0 ? v : NULL;
  }
  return NULL;
}

/* Whether pattern (attribute=value pairs separated by , or ;) matches
 * name: each attribute present, its value equal without regard to case,
 * a trailing * matching any rest; the n-th OU of the pattern is the n-th
 * of the name. name NULL only checks the pattern's syntax. Returns 1
 * match, 0 no match, -1 a malformed pattern. */
static int dn_matches(const char *pattern, const X509_NAME *name)
{
  int counts[sizeof dn_attributes / sizeof dn_attributes[0]] = { 0 };
  int pairs = 0;
  for (const char *p = pattern; *p;) {
    const char *end = p + strcspn(p, ",;");
    const char *eq = memchr(p, '=', (size_t)(end - p));
    if (!eq)
      return -1;
    const char *as = p, *ae = eq, *vs = eq + 1, *ve = end;
    trim(&as, &ae);
    trim(&vs, &ve);
    int nid = dn_nid(as, (size_t)(ae - as));
    if (nid == NID_undef)
      return -1;
    pairs++;
    if (name) {
      int k = 0;
      for (size_t i = 0; i < sizeof dn_attributes / sizeof dn_attributes[0]; i++)
        if (dn_attributes[i].nid == nid)
          k += counts[i];
      for (size_t i = 0; i < sizeof dn_attributes / sizeof dn_attributes[0]; i++)
        if (dn_attributes[i].nid == nid) {
          counts[i]++;
          break;
        }
      int len = 0;
      unsigned char *v = dn_value(name, nid, k, &len);
      size_t want = (size_t)(ve - vs);
      int wildcard = want > 0 && vs[want - 1] == '*';
      if (wildcard)
        want--;
      int ok = v && (wildcard ? (size_t)len >= want : (size_t)len == want) &&
               strncasecmp((const char *)v, vs, want) == 0;
      OPENSSL_free(v);
      if (!ok)
        return 0;
    }
    p = *end ? end + 1 : end;
  }
  return pairs > 0 ? 1 : -1;
}

/* ---- the key repository ------------------------------------------------ */

static int readable_file(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

static int has_suffix(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcmp(s + n - m, suffix) == 0;
}

/* The repository file and the stem its stash file has: a name ending
 * .kdb or .p12 is the file; a stem takes stem.kdb, else stem.p12. */
static int repository_file(const char *given, char *path, size_t pathsz, char *stem, size_t stemsz)
{
  if (has_suffix(given, ".kdb") || has_suffix(given, ".p12")) {
    snprintf(path, pathsz, "%s", given);
    snprintf(stem, stemsz, "%.*s", (int)(strlen(given) - 4), given);
    return readable_file(path) ? 0 : -1;
  }
  snprintf(stem, stemsz, "%s", given);
  snprintf(path, pathsz, "%s.kdb", given);
  if (readable_file(path))
    return 0;
  snprintf(path, pathsz, "%s.p12", given);
  return readable_file(path) ? 0 : -1;
}

/* The password in a stash file, or NULL. */
static char *read_stash(const char *stem)
{
  char path[MQ_SSL_KEY_REPOSITORY_LENGTH + 8];
  snprintf(path, sizeof path, "%s.sth", stem);
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  unsigned char buf[STASH_MAX_BYTES];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  char *pw = calloc(1, n + 1);
  size_t i = 0;
  for (; pw && i < n && (buf[i] ^ 0xF5) != 0; i++)
    pw[i] = (char)(buf[i] ^ 0xF5);
  OPENSSL_cleanse(buf, sizeof buf);
  if (pw && (i == n || i == 0)) {   /* no terminator, or empty: not a stash */
    OPENSSL_cleanse(pw, n + 1);
    free(pw);
    return NULL;
  }
  return pw;
}

/* The repository's password: MQSCO KeyRepoPassword, else MQKEYRPWD, else
 * its stash. NULL when there is none (or no memory). */
static char *repository_password(const MQSCO *sco, const char *stem)
{
  if (sco && sco->Version >= MQSCO_VERSION_6 && sco->KeyRepoPasswordLength > 0 &&
      sco->KeyRepoPasswordLength <= KEY_REPO_MAX_PASSWORD && !(sco->KeyRepoPasswordPtr && sco->KeyRepoPasswordOffset)) {
    const char *p = mqs_ptr_or_offset(sco, sco->KeyRepoPasswordPtr, sco->KeyRepoPasswordOffset);
    if (p)
      return strndup(p, (size_t)sco->KeyRepoPasswordLength);
  }
  const char *env = getenv("MQKEYRPWD");
  if (env && *env)
    return strdup(env);
  return read_stash(stem);
}

void mqs_tls_free(mqs_tls *t)
{
  if (!t)
    return;
  SSL_CTX_free(t->ctx);
  EVP_PKEY_free(t->key);
  X509_free(t->cert);
  free(t);
}

MQLONG mqs_tls_load(const MQSCO *sco, mqs_tls **out)
{
  *out = NULL;
  char given[MQ_SSL_KEY_REPOSITORY_LENGTH + 1] = "";
  if (sco)
    mqs_fixed_to_c(given, sizeof given, sco->KeyRepository, MQ_SSL_KEY_REPOSITORY_LENGTH);
  if (!given[0]) {
    const char *env = getenv("MQSSLKEYR");
    if (env)
      snprintf(given, sizeof given, "%s", env);
  }
  char path[MQ_SSL_KEY_REPOSITORY_LENGTH + 8], stem[MQ_SSL_KEY_REPOSITORY_LENGTH + 1];
  if (!given[0] || repository_file(given, path, sizeof path, stem, sizeof stem) != 0)
    return MQRC_KEY_REPOSITORY_ERROR;
  char *password = repository_password(sco, stem);
  if (!password)
    return MQRC_KEY_REPOSITORY_ERROR;

  MQLONG rc = MQRC_KEY_REPOSITORY_ERROR;
  mqs_tls *t = calloc(1, sizeof *t);
  FILE *f = fopen(path, "rb");
  PKCS12 *p12 = f ? d2i_PKCS12_fp(f, NULL) : NULL;
  STACK_OF(X509) *cas = NULL;
  if (f)
    fclose(f);
  if (!t) {
    rc = MQRC_STORAGE_NOT_AVAILABLE;
    goto done;
  }
  /* Not PKCS #12 (a CMS .kdb), or the wrong password: IBM's 2381. */
  if (!p12 || !PKCS12_parse(p12, password, &t->key, &t->cert, &cas))
    goto done;
  if (!(t->ctx = SSL_CTX_new(TLS_client_method()))) {
    rc = MQRC_SSL_INITIALIZATION_ERROR;
    goto done;
  }
  /* The server's certificate must chain to a CA certificate of the
   * repository; IBM's client does not compare its host name. */
  SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
  SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE);
  X509_STORE *store = SSL_CTX_get_cert_store(t->ctx);
  for (int i = 0; i < sk_X509_num(cas); i++)
    X509_STORE_add_cert(store, sk_X509_value(cas, i));
  if (sco && sco->Version >= MQSCO_VERSION_5)
    mqs_fixed_to_c(t->sco_label, sizeof t->sco_label, sco->CertificateLabel, MQ_CERT_LABEL_LENGTH);
  rc = MQRC_NONE;
done:
  OPENSSL_cleanse(password, strlen(password));
  free(password);
  PKCS12_free(p12);
  sk_X509_pop_free(cas, X509_free);
  ERR_clear_error();
  if (rc != MQRC_NONE)
    mqs_tls_free(t);
  else
    *out = t;
  return rc;
}

MQLONG mqs_tls_check_channel(const mqs_channel *ch)
{
  if (!find_cipher_spec(ch->cipher))
    return MQRC_SSL_INITIALIZATION_ERROR;
  if (ch->peer_name[0] && dn_matches(ch->peer_name, NULL) < 0)
    return MQRC_SSL_PEER_NAME_ERROR;
  return MQRC_NONE;
}

/* ---- one connection ----------------------------------------------------- */

/* OpenSSL writes to the socket without MSG_NOSIGNAL: a write to a server
 * that went away would raise SIGPIPE and end a C program. The signal is
 * blocked around each write and, if it came then, taken back. */
typedef struct {
  sigset_t old;
  int      was_pending;
} sigpipe_guard;

static void sigpipe_block(sigpipe_guard *g)
{
  sigset_t set, pending;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  sigpending(&pending);
  g->was_pending = sigismember(&pending, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, &g->old);
}

static void sigpipe_restore(sigpipe_guard *g)
{
  sigset_t set, pending;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  sigpending(&pending);
  if (!g->was_pending && sigismember(&pending, SIGPIPE)) {
    const struct timespec zero = { 0, 0 };
    sigtimedwait(&set, NULL, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The label of the certificate to send: the MQCD's, else the MQSCO's,
 * else IBM's default ibmwebspheremq<user>. *explicit says it was given. */
static void wanted_label(const mqs_tls *t, const mqs_channel *ch, char *label, size_t n, int *explicit)
{
  *explicit = 1;
  if (ch->cert_label[0]) {
    snprintf(label, n, "%s", ch->cert_label);
    return;
  }
  if (t->sco_label[0]) {
    snprintf(label, n, "%s", t->sco_label);
    return;
  }
  *explicit = 0;
  const struct passwd *pw = getpwuid(geteuid());
  snprintf(label, n, "%s%s", DEFAULT_LABEL_PREFIX, pw ? pw->pw_name : "");
  for (char *c = label; *c; c++)
    *c = (char)tolower((unsigned char)*c);
}

/* An I/O failure: err SSL_ERROR_SSL (an alert, a bad record) marks the
 * connection's TLS layer as failed. */
static long io_failed(SSL *ssl, int err)
{
  if (err == SSL_ERROR_SSL)
    SSL_set_app_data(ssl, ssl);
  ERR_clear_error();
  return -1;
}

int mqs_tls_failed(void *ssl)
{
  return ssl && SSL_get_app_data((SSL *)ssl) != NULL;
}

MQLONG mqs_tls_start(mqs_tls *t, const mqs_channel *ch, int fd, int timeout_ms, void **out)
{
  *out = NULL;
  const cipher_spec *spec = find_cipher_spec(ch->cipher);
  SSL *ssl = spec ? SSL_new(t->ctx) : NULL;
  if (!ssl)
    return MQRC_SSL_INITIALIZATION_ERROR;
  MQLONG rc = MQRC_SSL_INITIALIZATION_ERROR;
  int ok = SSL_set_min_proto_version(ssl, spec->min_version) &&
           SSL_set_max_proto_version(ssl, spec->max_version);
  if (ok && spec->max_version == TLS1_2_VERSION)
    ok = SSL_set_cipher_list(ssl, spec->openssl ? spec->openssl : TLS12_SUITES);
  else if (ok && spec->min_version == TLS1_2_VERSION)
    ok = SSL_set_cipher_list(ssl, TLS12_SUITES);
  if (ok && spec->min_version == TLS1_3_VERSION && spec->openssl)
    ok = SSL_set_ciphersuites(ssl, spec->openssl);

  char label[MQ_CERT_LABEL_LENGTH + 64];
  int explicit;
  wanted_label(t, ch, label, sizeof label, &explicit);
  int alias_len = 0;
  const unsigned char *alias = t->cert ? X509_alias_get0(t->cert, &alias_len) : NULL;
  if (alias && (size_t)alias_len == strlen(label) && memcmp(alias, label, (size_t)alias_len) == 0)
    ok = ok && SSL_use_certificate(ssl, t->cert) && SSL_use_PrivateKey(ssl, t->key);
  else if (explicit)
    ok = 0;   /* a label the repository does not hold: IBM's channel does not start */

  int flags = fcntl(fd, F_GETFL);
  ok = ok && flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 && SSL_set_fd(ssl, fd);
  int64_t deadline = now_ms() + timeout_ms;
  while (ok) {
    sigpipe_guard g;
    sigpipe_block(&g);
    int r = SSL_connect(ssl);
    sigpipe_restore(&g);
    if (r == 1)
      break;
    int err = SSL_get_error(ssl, r);
    int64_t left = deadline - now_ms();
    struct pollfd p = { .fd = fd, .events = err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT };
    if ((err != SSL_ERROR_WANT_READ && err != SSL_ERROR_WANT_WRITE) || left <= 0 ||
        poll(&p, 1, (int)left) <= 0)
      ok = 0;   /* an alert, no common CipherSpec, an untrusted certificate, time out */
  }
  if (ok && ch->peer_name[0]) {
    X509 *peer = SSL_get1_peer_certificate(ssl);
    int m = peer ? dn_matches(ch->peer_name, X509_get_subject_name(peer)) : 0;
    X509_free(peer);
    if (m != 1) {
      ok = 0;
      rc = MQRC_SSL_PEER_NAME_MISMATCH;
    }
  }
  ERR_clear_error();
  if (!ok) {
    SSL_free(ssl);
    return rc;
  }
  *out = ssl;
  return MQRC_NONE;
}

long mqs_tls_read(void *ssl, void *p, size_t n)
{
  size_t got = 0;
  int r = SSL_read_ex(ssl, p, n, &got);
  if (r == 1)
    return (long)got;
  int err = SSL_get_error(ssl, r);
  switch (err) {
  case SSL_ERROR_WANT_READ:
    return MQS_TLS_WANT_READ;
  case SSL_ERROR_WANT_WRITE:
    return MQS_TLS_WANT_WRITE;
  case SSL_ERROR_ZERO_RETURN:
    return 0;
  default:
    return io_failed(ssl, err);
  }
}

long mqs_tls_write(void *ssl, const void *p, size_t n)
{
  size_t put = 0;
  sigpipe_guard g;
  sigpipe_block(&g);
  int r = SSL_write_ex(ssl, p, n, &put);
  sigpipe_restore(&g);
  if (r == 1)
    return (long)put;
  int err = SSL_get_error(ssl, r);
  switch (err) {
  case SSL_ERROR_WANT_READ:
    return MQS_TLS_WANT_READ;
  case SSL_ERROR_WANT_WRITE:
    return MQS_TLS_WANT_WRITE;
  default:
    return io_failed(ssl, err);
  }
}

int mqs_tls_pending(void *ssl)
{
  return SSL_pending((SSL *)ssl) > 0;
}

void mqs_tls_close(void *ssl)
{
  if (!ssl)
    return;
  sigpipe_guard g;
  sigpipe_block(&g);
  SSL_shutdown((SSL *)ssl);   /* best effort close_notify; the socket closes next */
  sigpipe_restore(&g);
  SSL_free((SSL *)ssl);
  ERR_clear_error();
}
