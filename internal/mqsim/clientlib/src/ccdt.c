/*
 * ccdt.c -- IBM's JSON client channel definition table, from a file:// URL.
 *
 * Read: channel[].name, .type ("clientConnection" or absent),
 * .clientConnection.queueManager, .clientConnection.connection[].host/.port,
 * .connectionManagement.heartbeatInterval / .keepAliveInterval,
 * .general.maximumMessageLength, .transmissionSecurity.cipherSpecification,
 * .certificateLabel and .certificatePeerName.
 * Other keys are ignored. Channels serving the queue manager the application
 * named are tried in alphabetical order of name, as IBM's client does: a
 * name "QM1" or "*QM1" selects QMNAME QM1, a blank name or "*" a blank
 * QMNAME. The binary CCDT (AMQCLCHL.TAB) is not read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define CCDT_MAX_BYTES (4 << 20)   /* far above any real table */
#define JSON_MAX_DEPTH 32

/* ---- a small JSON reader ------------------------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
  jtype        type;
  double       num;
  char        *str;            /* J_STR */
  struct jval *items;          /* J_ARR, J_OBJ: values */
  char       **keys;           /* J_OBJ */
  size_t       n;
} jval;

typedef struct {
  const char *s, *end;
  int         bad;
} jparser;

static void jfree(jval *v)
{
  for (size_t i = 0; i < v->n; i++) {
    jfree(&v->items[i]);
    if (v->keys)
      free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->str);
}

static void skip_ws(jparser *p)
{
  while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
    p->s++;
}

static int eat(jparser *p, char c)
{
  skip_ws(p);
  if (p->s < p->end && *p->s == c) {
    p->s++;
    return 1;
  }
  return 0;
}

static int hexval(char c)
{
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A string; \u escapes outside ASCII become UTF-8 (names and hosts are ASCII). */
static char *parse_string(jparser *p)
{
  if (!eat(p, '"')) {
    p->bad = 1;
    return NULL;
  }
  char *out = malloc((size_t)(p->end - p->s) + 1), *o = out;
  if (!out) {
    p->bad = 1;
    return NULL;
  }
  while (p->s < p->end && *p->s != '"') {
    char c = *p->s++;
    if ((unsigned char)c < 0x20)
      break;
    if (c != '\\') {
      *o++ = c;
      continue;
    }
    if (p->s >= p->end)
      break;
    c = *p->s++;
    switch (c) {
    case '"': case '\\': case '/': *o++ = c; break;
    case 'b': *o++ = '\b'; break;
    case 'f': *o++ = '\f'; break;
    case 'n': *o++ = '\n'; break;
    case 'r': *o++ = '\r'; break;
    case 't': *o++ = '\t'; break;
    case 'u': {
      unsigned cp = 0;
      for (int i = 0; i < 4; i++) {
        int h = p->s < p->end ? hexval(*p->s++) : -1;
        if (h < 0) {
          free(out);
          p->bad = 1;
          return NULL;
        }
        cp = cp << 4 | (unsigned)h;
      }
      if (cp < 0x80) {
        *o++ = (char)cp;
      } else if (cp < 0x800) {
        *o++ = (char)(0xc0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3f));
      } else {
        *o++ = (char)(0xe0 | cp >> 12);
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
      }
      break;
    }
    default:
      free(out);
      p->bad = 1;
      return NULL;
    }
  }
  if (p->s >= p->end || *p->s != '"') {
    free(out);
    p->bad = 1;
    return NULL;
  }
  p->s++;
  *o = '\0';
  return out;
}

static int parse_value(jparser *p, jval *v, int depth);

static int append(jparser *p, jval *v, char *key, jval *item)
{
  jval *items = realloc(v->items, (v->n + 1) * sizeof *items);
  if (items)
    v->items = items;
  int keys_ok = 1;
  if (items && v->type == J_OBJ) {
    char **keys = realloc(v->keys, (v->n + 1) * sizeof *keys);
    if (keys)
      v->keys = keys;
    keys_ok = keys != NULL;
  }
  if (!items || !keys_ok) {
    free(key);
    jfree(item);
    p->bad = 1;
    return 0;
  }
  v->items[v->n] = *item;
  if (v->type == J_OBJ)
    v->keys[v->n] = key;
  v->n++;
  return 1;
}

static int parse_container(jparser *p, jval *v, int depth, char close)
{
  if (eat(p, close))
    return 1;
  do {
    char *key = NULL;
    if (v->type == J_OBJ) {
      skip_ws(p);
      key = parse_string(p);
      if (!key || !eat(p, ':')) {
        free(key);
        p->bad = 1;
        return 0;
      }
    }
    jval item;
    if (!parse_value(p, &item, depth + 1)) {
      free(key);
      return 0;
    }
    if (!append(p, v, key, &item))
      return 0;
  } while (eat(p, ','));
  if (!eat(p, close)) {
    p->bad = 1;
    return 0;
  }
  return 1;
}

static int literal(jparser *p, const char *word)
{
  size_t n = strlen(word);
  if ((size_t)(p->end - p->s) >= n && memcmp(p->s, word, n) == 0) {
    p->s += n;
    return 1;
  }
  return 0;
}

static int parse_value(jparser *p, jval *v, int depth)
{
  memset(v, 0, sizeof *v);
  skip_ws(p);
  if (depth > JSON_MAX_DEPTH || p->s >= p->end) {
    p->bad = 1;
    return 0;
  }
  char c = *p->s;
  if (c == '{' || c == '[') {
    p->s++;
    v->type = c == '{' ? J_OBJ : J_ARR;
    if (!parse_container(p, v, depth, c == '{' ? '}' : ']')) {
      jfree(v);
      return 0;
    }
    return 1;
  }
  if (c == '"') {
    v->type = J_STR;
    v->str = parse_string(p);
    return v->str != NULL;
  }
  if (literal(p, "true") || literal(p, "false")) {
    v->type = J_BOOL;         /* no key this reader uses is a boolean */
    return 1;
  }
  if (literal(p, "null")) {
    v->type = J_NULL;
    return 1;
  }
  char *end;
  errno = 0;
  v->num = strtod(p->s, &end);
  if (end == p->s || end > p->end || errno) {
    p->bad = 1;
    return 0;
  }
  p->s = end;
  v->type = J_NUM;
  return 1;
}

static const jval *member(const jval *obj, const char *key)
{
  if (!obj || obj->type != J_OBJ)
    return NULL;
  const jval *found = NULL;
  for (size_t i = 0; i < obj->n; i++)   /* the last of duplicate keys wins, as in IBM's parser */
    if (strcmp(obj->keys[i], key) == 0)
      found = &obj->items[i];
  return found;
}

static const char *member_str(const jval *obj, const char *key)
{
  const jval *v = member(obj, key);
  return v && v->type == J_STR ? v->str : NULL;
}

static long member_long(const jval *obj, const char *key, long dflt)
{
  const jval *v = member(obj, key);
  return v && v->type == J_NUM ? (long)v->num : dflt;
}

/* ---- the table ------------------------------------------------------ */

static char *read_file(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = malloc(CCDT_MAX_BYTES + 1);
  size_t got = buf ? fread(buf, 1, CCDT_MAX_BYTES + 1, f) : 0;
  int err = ferror(f);
  fclose(f);
  if (!buf || err || got > CCDT_MAX_BYTES) {
    free(buf);
    return NULL;
  }
  *n = got;
  return buf;
}

/* One channel entry into out; returns 0 when it is malformed. */
static int channel_from_json(const jval *ch, mqs_channel *out)
{
  memset(out, 0, sizeof *out);
  const char *name = member_str(ch, "name");
  const jval *cc = member(ch, "clientConnection");
  const jval *conns = member(cc, "connection");
  if (!name || !*name || strlen(name) > MQ_CHANNEL_NAME_LENGTH || !conns || conns->type != J_ARR ||
      conns->n == 0)
    return 0;
  snprintf(out->name, sizeof out->name, "%s", name);
  out->endpoints = calloc(conns->n, sizeof *out->endpoints);
  if (!out->endpoints)
    return 0;
  for (size_t i = 0; i < conns->n; i++) {
    const char *host = member_str(&conns->items[i], "host");
    long port = member_long(&conns->items[i], "port", MQS_DEFAULT_PORT);
    if (!host || !*host || strlen(host) > MQ_CONN_NAME_LENGTH || port < 1 || port > 65535)
      return 0;
    snprintf(out->endpoints[i].host, sizeof out->endpoints[i].host, "%s", host);
    out->endpoints[i].port = (int)port;
    out->nendpoints++;
  }
  const jval *cm = member(ch, "connectionManagement");
  out->hbint = (MQLONG)member_long(cm, "heartbeatInterval", MQS_SERVER_HBINT);
  out->keepalive = (MQLONG)member_long(cm, "keepAliveInterval", -1);
  out->max_msg_length = (MQLONG)member_long(member(ch, "general"), "maximumMessageLength", 0);
  const jval *security = member(ch, "transmissionSecurity");
  const char *cipher = member_str(security, "cipherSpecification");
  const char *label = member_str(security, "certificateLabel");
  const char *peer = member_str(security, "certificatePeerName");
  if (cipher)
    snprintf(out->cipher, sizeof out->cipher, "%s", cipher);
  if (label)
    snprintf(out->cert_label, sizeof out->cert_label, "%s", label);
  if (peer)
    snprintf(out->peer_name, sizeof out->peer_name, "%s", peer);
  return 1;
}

static int by_name(const void *a, const void *b)
{
  return strcmp(((const mqs_channel *)a)->name, ((const mqs_channel *)b)->name);
}

MQLONG mqs_ccdt_channels(const char *url, const char *qmgr, mqs_channel **out, int *n)
{
  *out = NULL;
  *n = 0;
  if (strncasecmp(url, "file://", 7) != 0)
    return MQRC_CCDT_URL_ERROR;    /* ftp:// and http:// are not fetched */
  const char *path = url + 7;
  if (*path != '/')
    return MQRC_CCDT_URL_ERROR;
  size_t len = 0;
  char *text = read_file(path, &len);
  if (!text)
    return MQRC_CLIENT_CONN_ERROR;
  jparser p = { text, text + len, 0 };
  jval root;
  int ok = parse_value(&p, &root, 0);
  skip_ws(&p);
  if (ok && p.s != p.end) {
    jfree(&root);
    ok = 0;
  }
  free(text);
  if (!ok)
    return MQRC_CLIENT_CONN_ERROR;

  const char *want = qmgr[0] == '*' ? qmgr + 1 : qmgr;
  const jval *chans = member(&root, "channel");
  MQLONG rc = MQRC_NONE;
  if (!chans || chans->type != J_ARR)
    rc = MQRC_CLIENT_CONN_ERROR;
  mqs_channel *list = rc ? NULL : calloc(chans->n ? chans->n : 1, sizeof *list);
  if (!rc && !list)
    rc = MQRC_STORAGE_NOT_AVAILABLE;
  int count = 0;
  for (size_t i = 0; !rc && i < chans->n; i++) {
    const jval *ch = &chans->items[i];
    const char *type = member_str(ch, "type");
    if (type && strcmp(type, "clientConnection") != 0)
      continue;
    const char *qm = member_str(member(ch, "clientConnection"), "queueManager");
    if (strcmp(qm ? qm : "", want) != 0)
      continue;
    if (!channel_from_json(ch, &list[count])) {
      free(list[count].endpoints);
      rc = MQRC_CLIENT_CONN_ERROR;
      break;
    }
    count++;
  }
  jfree(&root);
  if (rc) {
    mqs_channels_free(list, count);
    return rc;
  }
  if (count == 0) {
    free(list);
    return MQRC_Q_MGR_NAME_ERROR;  /* no channel for that queue manager */
  }
  qsort(list, (size_t)count, sizeof *list, by_name);
  *out = list;
  *n = count;
  return MQRC_NONE;
}
