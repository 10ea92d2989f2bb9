/*
 * wire.c -- encoding and decoding of frame bodies (PROTOCOL.md, "Encoding").
 *
 * Writers append to a growing buffer and remember an allocation failure
 * instead of reporting each one; readers check every length against the
 * frame and remember an overrun, so a call checks once at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define FRAME_HEADER 8   /* u32 length, u16 op, u16 flags */

static void reserve(mqs_buf *b, size_t more)
{
  if (b->oom)
    return;
  if (more > MQS_MAX_BODY + FRAME_HEADER || b->len + more > MQS_MAX_BODY + FRAME_HEADER) {
    b->oom = 1;             /* would never be accepted by the server */
    return;
  }
  if (b->len + more <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + more)
    cap *= 2;
  unsigned char *p = realloc(b->p, cap);
  if (!p) {
    b->oom = 1;
    return;
  }
  b->p = p;
  b->cap = cap;
}

void mqs_buf_reserve(mqs_buf *b, size_t more)
{
  reserve(b, more);
}

void mqs_buf_init(mqs_buf *b, uint16_t op)
{
  memset(b, 0, sizeof *b);
  reserve(b, FRAME_HEADER);
  if (b->oom)
    return;
  memset(b->p, 0, FRAME_HEADER);
  b->p[4] = (unsigned char)(op & 0xff);
  b->p[5] = (unsigned char)(op >> 8);
  b->len = FRAME_HEADER;
}

void mqs_buf_free(mqs_buf *b)
{
  free(b->p);
  memset(b, 0, sizeof *b);
}

void mqs_put_bytes(mqs_buf *b, const void *p, size_t n)
{
  reserve(b, n);
  if (b->oom)
    return;
  if (n)
    memcpy(b->p + b->len, p, n);
  b->len += n;
}

void mqs_put_i32(mqs_buf *b, int32_t v)
{
  uint32_t u = (uint32_t)v;
  unsigned char le[4] = { (unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                          (unsigned char)(u >> 24) };
  mqs_put_bytes(b, le, 4);
}

static void put_counted(mqs_buf *b, const void *p, size_t n)
{
  if (n > MQS_MAX_BODY) {
    b->oom = 1;
    return;
  }
  mqs_put_i32(b, (int32_t)n);
  mqs_put_bytes(b, p, n);
}

void mqs_put_cstr(mqs_buf *b, const char *s)
{
  put_counted(b, s, s ? strlen(s) : 0);
}

void mqs_put_fixed(mqs_buf *b, const char *field, size_t width)
{
  size_t n = 0;
  while (n < width && field[n] != '\0')
    n++;
  while (n > 0 && field[n - 1] == ' ')
    n--;
  put_counted(b, field, n);
}

/* A version-1 MQMD travels as version 2 with the version-2 fields at their
 * defaults (no group, sequence number 1, offset 0, no flags, length
 * undefined). */
void mqs_put_md(mqs_buf *b, const MQMD *md)
{
  MQMD v2;
  if (md->Version >= MQMD_VERSION_2) {
    memcpy(&v2, md, sizeof v2);
  } else {
    memset(&v2, 0, sizeof v2);
    memcpy(&v2, md, MQMD_LENGTH_1);
    v2.MsgSeqNumber = 1;
    v2.Offset = 0;
    v2.MsgFlags = MQMF_NONE;
    v2.OriginalLength = MQOL_UNDEFINED;
  }
  v2.Version = MQMD_VERSION_2;
  mqs_put_bytes(b, &v2, MQS_MD_WIRE_LENGTH);
}

/* ---- reading -------------------------------------------------------- */

static const unsigned char *take(mqs_rd *r, size_t n)
{
  if (r->bad || n > r->len - r->off) {
    r->bad = 1;
    return NULL;
  }
  const unsigned char *p = r->p + r->off;
  r->off += n;
  return p;
}

int32_t mqs_get_i32(mqs_rd *r)
{
  const unsigned char *p = take(r, 4);
  if (!p)
    return 0;
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

const unsigned char *mqs_get_bytes(mqs_rd *r, size_t *n)
{
  int32_t len = mqs_get_i32(r);
  *n = 0;
  if (r->bad)
    return NULL;
  if (len < 0) {
    r->bad = 1;
    return NULL;
  }
  const unsigned char *p = take(r, (size_t)len);
  if (p)
    *n = (size_t)len;
  return p;
}

void mqs_get_fixed(mqs_rd *r, char *field, size_t width)
{
  size_t n;
  const unsigned char *p = mqs_get_bytes(r, &n);
  if (n > width) {
    r->bad = 1;
    return;
  }
  if (!r->bad)
    mqs_c_to_fixed(field, width, "");
  if (p && n)
    memcpy(field, p, n);
}

void mqs_get_md(mqs_rd *r, MQMD *md2)
{
  const unsigned char *p = take(r, MQS_MD_WIRE_LENGTH);
  if (p)
    memcpy(md2, p, MQS_MD_WIRE_LENGTH);
}
