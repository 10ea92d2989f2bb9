/* util.c -- small helpers: fixed-width MQ strings, identifiers, clocks. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

void mqs_set(PMQLONG cc, PMQLONG rc, MQLONG ccv, MQLONG rcv)
{
  if (cc) *cc = ccv;
  if (rc) *rc = rcv;
}

/* MQ character fields are fixed width, blank padded and not NUL
 * terminated (applications may also NUL-terminate them early). */
void mqs_fixed_to_c(char *dst, size_t dstsz, const char *src, size_t srclen)
{
  size_t n = 0;
  if (src)
    while (n < srclen && n + 1 < dstsz && src[n] != '\0') {
      dst[n] = src[n];
      n++;
    }
  while (n > 0 && dst[n - 1] == ' ')
    n--;
  dst[n] = '\0';
}

void mqs_c_to_fixed(char *dst, size_t dstlen, const char *src)
{
  size_t n = src ? strlen(src) : 0;
  if (n > dstlen)
    n = dstlen;
  if (n)
    memcpy(dst, src, n);
  memset(dst + n, ' ', dstlen - n);
}

int mqs_is_none(const MQBYTE *id, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (id[i])
      return 0;
  return 1;
}

/* Identifiers look like the queue manager's own: "AMQ " + 12 characters of
 * the queue manager name + an 8-byte counter seeded from the clock, so they
 * are unique within (and very likely across) processes. Caller holds g_mu. */
void mqs_new_id(MQBYTE *id24, const char *qmname)
{
  static uint64_t counter;
  if (counter == 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    counter = ((uint64_t)ts.tv_sec << 24) ^ ((uint64_t)ts.tv_nsec) ^ ((uint64_t)getpid() << 44);
  }
  uint64_t v = ++counter;
  memcpy(id24, "AMQ ", 4);
  mqs_c_to_fixed((char *)id24 + 4, 12, qmname);
  for (int i = 0; i < 8; i++)
    id24[16 + i] = (MQBYTE)(v >> (8 * (7 - i)));
}

int64_t mqs_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void mqs_deadline(struct timespec *ts, int64_t ms)
{
  clock_gettime(CLOCK_MONOTONIC, ts);
  ts->tv_sec += ms / 1000;
  ts->tv_nsec += (long)(ms % 1000) * 1000000L;
  if (ts->tv_nsec >= 1000000000L) {
    ts->tv_sec++;
    ts->tv_nsec -= 1000000000L;
  }
}

/* PutDate YYYYMMDD and PutTime HHMMSSTH, both in GMT as IBM MQ sets them. */
void mqs_put_date_time(char date[8], char time_[8])
{
  struct timespec ts;
  struct tm tm;
  char buf[32];
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  snprintf(buf, sizeof buf, "%04d%02d%02d", (tm.tm_year + 1900) % 10000, tm.tm_mon + 1, tm.tm_mday);
  memcpy(date, buf, 8);
  snprintf(buf, sizeof buf, "%02d%02d%02d%02d", tm.tm_hour, tm.tm_min, tm.tm_sec,
           (int)(ts.tv_nsec / 10000000L));
  memcpy(time_, buf, 8);
}

/* PutApplName: the program name, as the client library reports it. */
const char *mqs_prog_name(void)
{
  const char *n = program_invocation_short_name;
  return (n && *n) ? n : "mqstub";
}

int mqs_strucid_ok(const void *p, const char *id)
{
  return p && memcmp(p, id, 4) == 0;
}
