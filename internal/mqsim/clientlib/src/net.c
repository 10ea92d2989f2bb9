/*
 * net.c -- TCP: connecting to one ConnectionName entry, and reading and
 * writing whole frames within a deadline, in clear or through TLS (tls.c).
 *
 * Every wait is a poll() with the time left, so a peer that stops answering
 * costs at most the call's bound. Keepalive is on, so a peer that vanished
 * (host down, cable out) is noticed even in an MQGET with an unlimited wait,
 * where no bound applies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* Keepalive when the MQCD names no KeepAliveInterval: first probe after
 * 30 s of silence, then every 10 s, given up after 3 unanswered. */
#define KEEPALIVE_IDLE_S     30
#define KEEPALIVE_INTERVAL_S 10
#define KEEPALIVE_PROBES     3

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline (-1: none) for poll(). */
static int left_ms(int64_t deadline)
{
  if (deadline < 0)
    return -1;
  int64_t left = deadline - now_ms();
  return left > 0 ? (int)(left > 0x7fffffff ? 0x7fffffff : left) : 0;
}

static int64_t deadline_after(int timeout_ms)
{
  return timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
}

static int wait_fd(int fd, short events, int64_t deadline)
{
  for (;;) {
    struct pollfd p = { .fd = fd, .events = events };
    int n = poll(&p, 1, left_ms(deadline));
    if (n > 0)
      return 0;
    if (n == 0)
      return -1;            /* timed out */
    if (errno != EINTR)
      return -1;
  }
}

static void set_keepalive(int fd, MQLONG keepalive_s)
{
  int on = 1;
  int idle = keepalive_s > 0 ? (int)keepalive_s : KEEPALIVE_IDLE_S;
  int intvl = KEEPALIVE_INTERVAL_S, cnt = KEEPALIVE_PROBES;
  /* Best effort: a socket without keepalive still has the call bounds. */
  (void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

static int connect_addr(const struct addrinfo *ai, int64_t deadline)
{
  int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
  if (fd < 0)
    return -1;
  if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
    int err = 0;
    socklen_t len = sizeof err;
    if (errno != EINPROGRESS || wait_fd(fd, POLLOUT, deadline) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
      close(fd);
      return -1;
    }
  }
  /* Back to blocking; every read and write polls first. */
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int mqs_net_connect(const mqs_endpoint *e, MQLONG keepalive_s)
{
  char port[16];
  snprintf(port, sizeof port, "%d", e->port);
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(e->host, port, &hints, &res) != 0)
    return -1;
  int64_t deadline = deadline_after(MQS_CONNECT_TIMEOUT_MS);
  int fd = -1;
  for (const struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
    fd = connect_addr(ai, deadline);
  freeaddrinfo(res);
  if (fd >= 0)
    set_keepalive(fd, keepalive_s);
  return fd;
}

int mqs_net_send(int fd, void *ssl, const unsigned char *p, size_t n, int timeout_ms)
{
  int64_t deadline = deadline_after(timeout_ms);
  /* In clear, a send that finds room in the socket's buffer (nearly
   * always) needs no poll first: one system call per request. TLS writes
   * to a blocking socket, so it waits for room first. */
  short want = ssl ? POLLOUT : 0;
  while (n > 0) {
    if (want && wait_fd(fd, want, deadline) != 0)
      return -1;
    ssize_t w;
    if (ssl) {
      w = mqs_tls_write(ssl, p, n);
      if (w == MQS_TLS_WANT_READ || w == MQS_TLS_WANT_WRITE) {
        want = w == MQS_TLS_WANT_READ ? POLLIN : POLLOUT;
        continue;
      }
      if (w <= 0)
        return -1;
    } else {
      w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
          want = POLLOUT;
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
          continue;
        return -1;
      }
    }
    want = ssl ? POLLOUT : 0;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Receive n bytes. ready says they are probably there already (a frame's
 * body after its header): in clear it then reads before polling, which
 * saves the poll when they are. TLS reads a blocking socket, so it polls
 * unless OpenSSL holds decrypted bytes. */
static int recv_all(int fd, void *ssl, unsigned char *p, size_t n, int64_t deadline, int ready)
{
  short want = ready && !ssl ? 0 : POLLIN;
  while (n > 0) {
    /* TLS may hold decrypted bytes while the socket is quiet. */
    if (want && !(ssl && want == POLLIN && mqs_tls_pending(ssl)) && wait_fd(fd, want, deadline) != 0)
      return -1;
    ssize_t got;
    if (ssl) {
      got = mqs_tls_read(ssl, p, n);
      if (got == MQS_TLS_WANT_READ || got == MQS_TLS_WANT_WRITE) {
        want = got == MQS_TLS_WANT_READ ? POLLIN : POLLOUT;
        continue;
      }
      if (got <= 0)
        return -1;            /* closed, or the TLS connection failed */
    } else {
      got = recv(fd, p, n, MSG_DONTWAIT);
      if (got == 0)
        return -1;            /* the server closed the connection */
      if (got < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
          want = POLLIN;
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
          continue;
        return -1;
      }
    }
    want = ready && !ssl ? 0 : POLLIN;
    p += got;
    n -= (size_t)got;
  }
  return 0;
}

int mqs_net_recv_frame(int fd, void *ssl, int timeout_ms, uint16_t *op, unsigned char **body, size_t *n)
{
  int64_t deadline = deadline_after(timeout_ms);
  unsigned char hdr[8];
  *body = NULL;
  *n = 0;
  if (recv_all(fd, ssl, hdr, sizeof hdr, deadline, 0) != 0)
    return -1;
  uint32_t length = (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 | (uint32_t)hdr[2] << 16 |
                    (uint32_t)hdr[3] << 24;
  uint16_t flags = (uint16_t)(hdr[6] | hdr[7] << 8);
  if (length < 4 || length - 4 > MQS_MAX_BODY || flags != 0)
    return -1;              /* protocol error */
  *op = (uint16_t)(hdr[4] | hdr[5] << 8);
  size_t len = length - 4;
  unsigned char *p = malloc(len ? len : 1);
  if (!p)
    return -1;
  if (recv_all(fd, ssl, p, len, deadline, 1) != 0) {
    free(p);
    return -1;
  }
  *body = p;
  *n = len;
  return 0;
}
