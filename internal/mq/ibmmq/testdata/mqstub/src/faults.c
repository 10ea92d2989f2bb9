/*
 * faults.c -- fault injection driven by MQSTUB_* environment variables.
 *
 * Variables are read with getenv() at call time, so a Go test can flip them
 * with os.Setenv (cgo forwards that to the C environment). "Changed" means
 * a different value OR a fresh setenv/unsetenv of the variable: the library
 * interposes setenv/unsetenv/putenv/clearenv to count writes, so setting
 * MQSTUB_FAIL_PUT=1:2053 again after a test restored it still re-arms the
 * fault. Without the interposer (e.g. another library wins symbol lookup)
 * detection falls back to comparing values.
 *
 * All functions except the interposers are called with g_mu held.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { EV_FAIL_PUT, EV_FAIL_GET, EV_FAIL_CMIT, EV_DROP_PUT, EV_DUP_PUT, EV_BREAK, EV_RESET, EV_COUNT };

static const char *const ev_names[EV_COUNT] = {
  "MQSTUB_FAIL_PUT", "MQSTUB_FAIL_GET", "MQSTUB_FAIL_CMIT", "MQSTUB_DROP_PUT", "MQSTUB_DUP_PUT",
  "MQSTUB_BREAK", "MQSTUB_RESET",
};

static atomic_uint ev_gen[EV_COUNT];   /* bumped by every write to the variable */

typedef struct {
  int      seen;          /* observed at least once */
  unsigned gen;
  char     val[128];
  long     count;         /* calls counted since the value took effect */
} ev_state;

static ev_state ev[EV_COUNT];

/* ---- environment write interposers --------------------------------- */

static void bump(const char *name, size_t len)
{
  if (!name || strncmp(name, "MQSTUB_", 7) != 0)
    return;
  for (int i = 0; i < EV_COUNT; i++)
    if (strlen(ev_names[i]) == len && memcmp(ev_names[i], name, len) == 0)
      atomic_fetch_add(&ev_gen[i], 1);
}

static void *next_sym(const char *name)
{
  return dlsym(RTLD_NEXT, name);
}

MQS_EXPORT int setenv(const char *name, const char *value, int overwrite)
{
  static int (*real)(const char *, const char *, int);
  if (!real)
    real = (int (*)(const char *, const char *, int))next_sym("setenv");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  int r = real(name, value, overwrite);
  if (r == 0 && name)
    bump(name, strlen(name));
  return r;
}

MQS_EXPORT int unsetenv(const char *name)
{
  static int (*real)(const char *);
  if (!real)
    real = (int (*)(const char *))next_sym("unsetenv");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  int r = real(name);
  if (r == 0)
    bump(name, strlen(name));
  return r;
}

MQS_EXPORT int putenv(char *string)
{
  static int (*real)(char *);
  if (!real)
    real = (int (*)(char *))next_sym("putenv");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  int r = real(string);
  if (r == 0) {
    const char *eq = strchr(string, '=');
    bump(string, eq ? (size_t)(eq - string) : strlen(string));
  }
  return r;
}

MQS_EXPORT int clearenv(void)
{
  static int (*real)(void);
  if (!real)
    real = (int (*)(void))next_sym("clearenv");
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  int r = real();
  for (int i = 0; i < EV_COUNT; i++)
    atomic_fetch_add(&ev_gen[i], 1);
  return r;
}

/* ---- observation ---------------------------------------------------- */

/* Copy the current value into out; returns 1 if it changed since the last
 * observation (and restarts that variable's call counter). */
static int observe(int which, char *out, size_t outsz)
{
  const char *v = getenv(ev_names[which]);
  snprintf(out, outsz, "%s", v ? v : "");
  unsigned g = atomic_load(&ev_gen[which]);
  ev_state *s = &ev[which];
  if (s->seen && s->gen == g && strcmp(s->val, out) == 0)
    return 0;
  s->seen = 1;
  s->gen = g;
  snprintf(s->val, sizeof s->val, "%s", out);
  s->count = 0;
  return 1;
}

static void warn_once(const char *name, const char *val)
{
  static char last[160];
  char key[160];
  snprintf(key, sizeof key, "%s=%s", name, val);
  if (strcmp(key, last) != 0) {
    fprintf(stderr, "mqstub: ignoring malformed %s\n", key);
    snprintf(last, sizeof last, "%s", key);
  }
}

void mqs_faults_poll(void)
{
  char v[128];
  if (observe(EV_BREAK, v, sizeof v) && v[0]) {
    for (mqs_conn *c = g_conns; c; c = c->next)
      if (!c->broken)
        mqs_conn_break(c);
  }
}

int mqs_faults_reset_requested(void)
{
  char v[128];
  return observe(EV_RESET, v, sizeof v);
}

int mqs_fault_take(int which, MQLONG *rc)
{
  static const int map[] = { [MQS_FAULT_PUT] = EV_FAIL_PUT, [MQS_FAULT_GET] = EV_FAIL_GET,
                             [MQS_FAULT_CMIT] = EV_FAIL_CMIT };
  int e = map[which];
  char v[128], *end;
  observe(e, v, sizeof v);
  if (!v[0])
    return 0;
  long n = strtol(v, &end, 10), r = 0;
  int ok = end != v && *end == ':';
  if (ok) {
    char *r0 = end + 1;
    r = strtol(r0, &end, 10);
    ok = end != r0 && *end == '\0';
  }
  if (!ok) {
    warn_once(ev_names[e], v);
    return 0;
  }
  if (n < 1)
    return 0;                   /* "0:<rc>" disarms */
  if (++ev[e].count != n)
    return 0;
  *rc = (MQLONG)r;
  return 1;
}

/* Count a call against a "<n>" variable; 1 when this is the n-th. */
static int nth_take(int e)
{
  char v[128], *end;
  observe(e, v, sizeof v);
  if (!v[0])
    return 0;
  long n = strtol(v, &end, 10);
  if (end == v || *end != '\0') {
    warn_once(ev_names[e], v);
    return 0;
  }
  return n >= 1 && ++ev[e].count == n;   /* "0" disarms */
}

int mqs_fault_put_effect(void)
{
  /* Both count every put, so neither count depends on the other. */
  int drop = nth_take(EV_DROP_PUT), dup = nth_take(EV_DUP_PUT);
  return drop ? MQS_PUT_DROP : dup ? MQS_PUT_DUP : MQS_PUT_NORMAL;
}

MQLONG mqs_fault_connx_reason(void)
{
  const char *v = getenv("MQSTUB_CONNX_REASON");
  char *end;
  if (!v || !*v)
    return 0;
  long r = strtol(v, &end, 10);
  if (end == v || *end != '\0') {
    warn_once("MQSTUB_CONNX_REASON", v);
    return 0;
  }
  return (MQLONG)r;             /* 0: connect normally */
}

long mqs_env_long(const char *name, long dflt)
{
  const char *v = getenv(name);
  char *end;
  if (!v || !*v)
    return dflt;
  long r = strtol(v, &end, 10);
  if (end == v || *end != '\0' || r < 0) {
    warn_once(name, v);
    return dflt;
  }
  return r;
}
