/*
 * pacer.c -- the pacing rows' floor: a C loop keeping a rate with nothing
 * to do, so that the p99 gap of TEST's and PRODUCE's paced puts can be read
 * against what the machine itself allows a spinning program.
 *
 *   pacer -r rate -d seconds
 *
 * Its schedule is internal/pacing's: event n is due at start + n/rate, it
 * spins on CLOCK_MONOTONIC until then, and an event found more than one
 * interval (and more than 1 ms) late restarts the schedule from that
 * moment. Each event's time is kept in memory; at the end they are written
 * to stdout as little-endian signed 64-bit nanoseconds, and the program
 * exits 0. Bad arguments print a usage line and exit 2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int64_t now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void put_le64(int64_t v, unsigned char *out) {
  uint64_t u = (uint64_t)v;
  for (int i = 0; i < 8; i++) out[i] = (unsigned char)(u >> (8 * i));
}

int main(int argc, char **argv) {
  long rate = 0;
  double seconds = 0;
  int opt;
  while ((opt = getopt(argc, argv, "r:d:")) != -1) {
    switch (opt) {
    case 'r': rate = strtol(optarg, NULL, 10); break;
    case 'd': seconds = strtod(optarg, NULL); break;
    default: rate = 0;
    }
  }
  if (rate < 1 || rate > 1000000 || seconds <= 0 || seconds > 600) {
    fprintf(stderr, "usage: pacer -r rate (1..1000000 events/s) -d seconds (0..600]\n");
    return 2;
  }
  int64_t events = (int64_t)(rate * seconds);
  if (events < 2) events = 2;
  int64_t *at = malloc(sizeof *at * events);
  unsigned char *out = malloc(8 * events);
  if (at == NULL || out == NULL) {
    fprintf(stderr, "pacer: out of memory for %lld events\n", (long long)events);
    return 1;
  }
  const int64_t second = 1000000000, interval = second / rate;
  const int64_t stall = interval > 1000000 ? interval : 1000000;
  int64_t start = now(), base = 0;
  for (int64_t n = 0; n < events; n++) {
    int64_t due = start + (n - base) * second / rate, t = now();
    if (t - due > stall) {
      start = t;
      base = n;
      due = t;
    }
    while ((t = now()) < due) {
    }
    at[n] = t;
  }
  for (int64_t n = 0; n < events; n++) put_le64(at[n], out + 8 * n);
  if (fwrite(out, 8, events, stdout) != (size_t)events || fflush(stdout) != 0) {
    perror("pacer: write");
    return 1;
  }
  return 0;
}
