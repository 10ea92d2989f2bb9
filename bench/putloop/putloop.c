/*
 * putloop.c -- the server path's ceiling: a C put loop written against the
 * MQI the way IBM's blast programs put (MQCONNX, MQOPEN, MQPUT in a loop,
 * MQCMIT every txSize messages, no message properties), so that mqprobe's
 * PRODUCE can be judged against what a plain client program achieves on
 * the same queue manager. It is the project's own program, built by the
 * benchmarks against whichever client library CGO_CFLAGS / CGO_LDFLAGS name.
 *
 *   MQSERVER='DEV.APP.SVRCONN/TCP/127.0.0.1(1414)' putloop [-m QMgr] [-q Queue]
 *       [-n count] [-t txSize] [-s bytes] [-e expiryTenths] [-p] [-a]
 *
 * Defaults: QM1, DEV.QUEUE.1, 5000 messages, txSize 100, 2048 bytes, no
 * expiry, non-persistent, synchronous puts (-a: MQPMO_ASYNC_RESPONSE, with
 * MQSTAT before every commit). Connecting and opening are not timed; the
 * time runs from the first MQPUT to the end of the last MQCMIT. On success
 * it prints one line, "putloop: msgs=N seconds=S", and exits 0; any failed
 * call is printed and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmqc.h>
#include <cmqxc.h>

static void set_field(MQCHAR *field, size_t length, const char *text) {
  size_t n = strlen(text);
  if (n > length) n = length;
  memset(field, 0, length);
  memcpy(field, text, n);
}

/* MQSERVER is ChannelName/TCP/ConnectionName */
static int channel_from_mqserver(MQCD *cd) {
  char mqserver[MQ_CHANNEL_NAME_LENGTH + 8 + MQ_CONN_NAME_LENGTH + 1];
  const char *env = getenv("MQSERVER");
  char *transport, *connName;

  if (env == NULL || strlen(env) >= sizeof mqserver) {
    fprintf(stderr, "putloop: MQSERVER must be set to ChannelName/TCP/ConnectionName\n");
    return 0;
  }
  strcpy(mqserver, env);
  transport = strchr(mqserver, '/');
  connName = transport ? strchr(transport + 1, '/') : NULL;
  if (connName == NULL || strncmp(transport, "/TCP/", 5) != 0 ||
      transport - mqserver > MQ_CHANNEL_NAME_LENGTH) {
    fprintf(stderr, "putloop: MQSERVER '%s' is not ChannelName/TCP/ConnectionName\n", env);
    return 0;
  }
  *transport = '\0';
  set_field(cd->ChannelName, MQ_CHANNEL_NAME_LENGTH, mqserver);
  set_field(cd->ConnectionName, MQ_CONN_NAME_LENGTH, connName + 1);
  cd->TransportType = MQXPT_TCP;
  return 1;
}

static int failed(const char *call, MQLONG CompCode, MQLONG Reason) {
  if (CompCode == MQCC_OK) return 0;
  fprintf(stderr, "putloop: %s ended with CompCode %d Reason %d\n", call, (int)CompCode, (int)Reason);
  return CompCode == MQCC_FAILED;
}

/* The asynchronous puts since the last MQSTAT all succeeded. */
static int async_puts_ok(MQHCONN Hcon) {
  MQSTS sts = {MQSTS_DEFAULT};
  MQLONG CompCode, Reason;
  MQSTAT(Hcon, MQSTAT_TYPE_ASYNC_ERROR, &sts, &CompCode, &Reason);
  if (failed("MQSTAT", CompCode, Reason)) return 0;
  if (sts.PutFailureCount > 0) {
    fprintf(stderr, "putloop: %d asynchronous puts failed, the first with Reason %d\n",
            (int)sts.PutFailureCount, (int)sts.Reason);
    return 0;
  }
  return 1;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long positive(const char *flag, const char *value) {
  char *end;
  long n = strtol(value, &end, 10);
  if (*value == '\0' || *end != '\0' || n < 1 || n > 100000000) {
    fprintf(stderr, "putloop: -%s %s: must be a whole number from 1 to 100000000\n", flag, value);
    exit(2);
  }
  return n;
}

int main(int argc, char **argv) {
  const char *qmgr = "QM1", *queue = "DEV.QUEUE.1";
  long count = 5000, txSize = 100, size = 2048, expiry = MQEI_UNLIMITED;
  int persistent = 0, async = 0, opt;

  while ((opt = getopt(argc, argv, "m:q:n:t:s:e:pa")) != -1) {
    switch (opt) {
    case 'm': qmgr = optarg; break;
    case 'q': queue = optarg; break;
    case 'n': count = positive("n", optarg); break;
    case 't': txSize = positive("t", optarg); break;
    case 's': size = positive("s", optarg); break;
    case 'e': expiry = positive("e", optarg); break;
    case 'p': persistent = 1; break;
    case 'a': async = 1; break;
    default:
      fprintf(stderr, "usage: putloop [-m QMgr] [-q Queue] [-n count] [-t txSize] [-s bytes] [-e expiryTenths] [-p] [-a]\n");
      return 2;
    }
  }

  MQCNO cno = {MQCNO_DEFAULT};
  MQCD cd = {MQCD_CLIENT_CONN_DEFAULT};
  MQCSP csp = {MQCSP_DEFAULT};
  MQOD od = {MQOD_DEFAULT};
  MQMD md = {MQMD_DEFAULT};
  MQPMO pmo = {MQPMO_DEFAULT};
  MQHCONN Hcon = MQHC_UNUSABLE_HCONN;
  MQHOBJ Hobj = MQHO_UNUSABLE_HOBJ;
  MQLONG CompCode, Reason;
  char qmName[MQ_Q_MGR_NAME_LENGTH + 1];

  if (!channel_from_mqserver(&cd)) return 1;
  csp.AuthenticationType = MQCSP_AUTH_USER_ID_AND_PWD;
  csp.CSPUserIdPtr = "app";
  csp.CSPUserIdLength = 3;
  csp.CSPPasswordPtr = "";
  csp.CSPPasswordLength = 0;
  cno.Version = MQCNO_VERSION_5;
  cno.ClientConnPtr = &cd;
  cno.SecurityParmsPtr = &csp;
  set_field(qmName, sizeof qmName, qmgr);
  MQCONNX(qmName, &cno, &Hcon, &CompCode, &Reason);
  if (failed("MQCONNX", CompCode, Reason)) return 1;

  set_field(od.ObjectName, MQ_Q_NAME_LENGTH, queue);
  MQOPEN(Hcon, &od, MQOO_OUTPUT | MQOO_FAIL_IF_QUIESCING, &Hobj, &CompCode, &Reason);
  if (failed("MQOPEN", CompCode, Reason)) return 1;

  char *buffer = calloc((size_t)size, 1);
  if (buffer == NULL) {
    fprintf(stderr, "putloop: no memory for a %ld-byte message\n", size);
    return 1;
  }
  md.Persistence = persistent ? MQPER_PERSISTENT : MQPER_NOT_PERSISTENT;
  md.Expiry = (MQLONG)expiry;
  pmo.Options = MQPMO_SYNCPOINT | MQPMO_NEW_MSG_ID | MQPMO_FAIL_IF_QUIESCING |
                (async ? MQPMO_ASYNC_RESPONSE : 0);

  double began = now_seconds();
  for (long i = 1; i <= count; i++) {
    MQPUT(Hcon, Hobj, &md, &pmo, (MQLONG)size, buffer, &CompCode, &Reason);
    if (failed("MQPUT", CompCode, Reason)) return 1;
    if (i % txSize == 0 || i == count) {
      if (async && !async_puts_ok(Hcon)) return 1;
      MQCMIT(Hcon, &CompCode, &Reason);
      if (failed("MQCMIT", CompCode, Reason) || CompCode != MQCC_OK) return 1;
    }
  }
  double seconds = now_seconds() - began;

  MQCLOSE(Hcon, &Hobj, MQCO_NONE, &CompCode, &Reason);
  if (failed("MQCLOSE", CompCode, Reason)) return 1;
  MQDISC(&Hcon, &CompCode, &Reason);
  if (failed("MQDISC", CompCode, Reason)) return 1;
  free(buffer);
  printf("putloop: msgs=%ld seconds=%.6f\n", count, seconds);
  return 0;
}
