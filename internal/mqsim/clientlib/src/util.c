/* util.c -- small helpers: fixed-width MQ strings, structure checks. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

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

/* The application name IBM's client reports when MQCNO gives none. */
const char *mqs_prog_name(void)
{
  const char *n = program_invocation_short_name;
  return (n && *n) ? n : "mqstub";
}

int mqs_strucid_ok(const void *p, const char *id)
{
  return p && memcmp(p, id, 4) == 0;
}

const void *mqs_ptr_or_offset(const void *base, MQPTR ptr, MQLONG offset)
{
  if (ptr)
    return ptr;
  if (offset > 0)
    return (const char *)base + offset;
  return NULL;
}
