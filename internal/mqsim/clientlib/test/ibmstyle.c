/*
 * ibmstyle.c -- an MQI client program written the way IBM's C samples are
 * (amqsput0, amqsget0, amqsbcg0, amqsinqa): structures start from their
 * xxx_DEFAULT initial values, every call's CompCode and Reason are checked.
 * It runs against a queue manager served by mqserver:
 *
 *   MQSERVER='DEV.APP.SVRCONN/TCP/127.0.0.1(1414)' ibmstyle [QName [QMgrName]]
 *
 * (defaults DEV.QUEUE.1 and QM1). MQSERVER is parsed here into an explicit
 * MQCD passed to MQCONNX with an MQCSP for user MQSAMP_USER_ID (default
 * "app") and password MQSAMP_PASSWORD (default empty).
 *
 * It puts three messages with properties of every MQTYPE, all with one
 * CorrelId of its own, browses them (payload, MQMD and properties), gets
 * them, checks none is left, and inquires the queue's and the queue
 * manager's attributes. It prints what it does and exits 0 when every check
 * holds, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmqc.h>
#include <cmqxc.h>
#include <cmqstrc.h>

#define MESSAGES 3
#define BUFFER_LENGTH 1024

static int failures;

/* report a check; keep going so that one run shows every difference */
static void check(int ok, const char *what) {
  if (!ok) {
    printf("FAILED: %s\n", what);
    failures++;
  }
}

/* report an MQI call's outcome; true when it is the one expected */
static int call_ok(const char *call, MQLONG CompCode, MQLONG Reason, MQLONG expectedReason) {
  if (Reason == expectedReason && (Reason == MQRC_NONE ? CompCode == MQCC_OK : 1)) return 1;
  printf("FAILED: %s ended with CompCode %d Reason %d (%s), expected %d (%s)\n", call,
         CompCode, Reason, MQRC_STR(Reason), expectedReason, MQRC_STR(expectedReason));
  failures++;
  return 0;
}

/* Copy text into a fixed-length MQCHARn field, NUL-filled as strncpy does
 * (MQCHARn fields need no terminator, so a full-length value fills it). */
static void set_field(MQCHAR *field, size_t length, const char *text) {
  size_t n = strlen(text);
  if (n > length) n = length;
  memset(field, 0, length);
  memcpy(field, text, n);
}

/* MQSERVER is ChannelName/TransportType/ConnectionName */
static int channel_from_mqserver(MQCD *cd) {
  char mqserver[MQ_CHANNEL_NAME_LENGTH + 8 + MQ_CONN_NAME_LENGTH + 1];
  const char *env = getenv("MQSERVER");
  char *transport, *connName;

  if (env == NULL || strlen(env) >= sizeof mqserver) {
    printf("MQSERVER must be set to ChannelName/TCP/ConnectionName\n");
    return 0;
  }
  strcpy(mqserver, env);
  transport = strchr(mqserver, '/');
  connName = transport ? strchr(transport + 1, '/') : NULL;
  if (connName == NULL) {
    printf("MQSERVER '%s' is not ChannelName/TCP/ConnectionName\n", env);
    return 0;
  }
  *transport++ = '\0';
  *connName++ = '\0';
  if (strcmp(transport, "TCP") != 0 || strlen(mqserver) > MQ_CHANNEL_NAME_LENGTH) {
    printf("MQSERVER '%s': transport must be TCP, channel at most %d characters\n", env,
           MQ_CHANNEL_NAME_LENGTH);
    return 0;
  }
  set_field(cd->ChannelName, MQ_CHANNEL_NAME_LENGTH, mqserver);
  set_field(cd->ConnectionName, MQ_CONN_NAME_LENGTH, connName);
  cd->TransportType = MQXPT_TCP;
  return 1;
}

/* a blank-padded MQCHARn field equals a C string */
static int field_equals(const MQCHAR *field, size_t length, const char *text) {
  size_t n = strlen(text);
  if (n > length || memcmp(field, text, n) != 0) return 0;
  for (; n < length; n++)
    if (field[n] != ' ' && field[n] != '\0') return 0;
  return 1;
}

/* The length of a blank- or NUL-padded field without its padding, for printing. */
static int trimmed(const MQCHAR *field, int length) {
  while (length > 0 && (field[length - 1] == ' ' || field[length - 1] == '\0')) length--;
  return length;
}

/* The properties each message carries, set and then expected back. */
static void set_properties(MQHCONN Hcon, MQHMSG Hmsg, MQLONG index) {
  MQSMPO  smpo = {MQSMPO_DEFAULT};
  MQPD    pd = {MQPD_DEFAULT};
  MQCHARV name = {MQCHARV_DEFAULT};
  MQLONG  CompCode, Reason;
  char    text[32];
  MQLONG  int32Value = 1000 + index;
  MQINT64 int64Value = 5000000000LL + index;
  MQINT8  int8Value = (MQINT8)(-100 - index);
  MQINT16 int16Value = (MQINT16)(-30000 + index);
  MQBOOL  boolValue = index % 2;
  MQFLOAT32 float32Value = 1.5f * (MQFLOAT32)index;
  MQFLOAT64 float64Value = 3.25 * index;
  MQBYTE  bytesValue[4] = {0x00, 0xFF, 0x10, (MQBYTE)index};
  struct {
    const char *name;
    MQLONG type;
    MQLONG length;
    void *value;
  } props[] = {
    {"text", MQTYPE_STRING, MQVL_NULL_TERMINATED, text},
    {"count", MQTYPE_INT32, sizeof int32Value, &int32Value},
    {"big", MQTYPE_INT64, sizeof int64Value, &int64Value},
    {"small", MQTYPE_INT8, sizeof int8Value, &int8Value},
    {"short", MQTYPE_INT16, sizeof int16Value, &int16Value},
    {"odd", MQTYPE_BOOLEAN, sizeof boolValue, &boolValue},
    {"ratio", MQTYPE_FLOAT32, sizeof float32Value, &float32Value},
    {"price", MQTYPE_FLOAT64, sizeof float64Value, &float64Value},
    {"raw", MQTYPE_BYTE_STRING, sizeof bytesValue, bytesValue},
    {"nothing", MQTYPE_NULL, 0, NULL},
  };
  size_t i;

  sprintf(text, "message %d of %d", index, MESSAGES);
  for (i = 0; i < sizeof props / sizeof props[0]; i++) {
    name.VSPtr = (MQPTR)props[i].name;
    name.VSLength = (MQLONG)strlen(props[i].name);
    MQSETMP(Hcon, Hmsg, &smpo, &name, &pd, props[i].type, props[i].length, props[i].value,
            &CompCode, &Reason);
    call_ok("MQSETMP", CompCode, Reason, MQRC_NONE);
  }
}

/* Walk the handle's properties as amqsbcg0 does and check each one. */
static void check_properties(MQHCONN Hcon, MQHMSG Hmsg, MQLONG index) {
  MQIMPO  impo = {MQIMPO_DEFAULT};
  MQCHARV inqName = {MQPROP_INQUIRE_ALL};
  MQPD    pd = {MQPD_DEFAULT};
  MQLONG  Type, DataLength, CompCode = MQCC_OK, Reason = MQRC_NONE;
  MQCHAR  nameBuffer[64];
  MQBYTE  value[64];
  char    expectedText[32], what[128];
  int     seen = 0;

  sprintf(expectedText, "message %d of %d", index, MESSAGES);
  impo.ReturnedName.VSPtr = nameBuffer;
  impo.ReturnedName.VSBufSize = sizeof nameBuffer;
  impo.Options = MQIMPO_INQ_FIRST;
  for (;;) {
    MQINQMP(Hcon, Hmsg, &impo, &inqName, &pd, &Type, sizeof value, value, &DataLength,
            &CompCode, &Reason);
    if (Reason == MQRC_PROPERTY_NOT_AVAILABLE) break;
    if (!call_ok("MQINQMP", CompCode, Reason, MQRC_NONE)) return;
    impo.Options = MQIMPO_INQ_NEXT;
    seen++;

#define NAMED(s) (impo.ReturnedName.VSLength == (MQLONG)strlen(s) && \
                  memcmp(nameBuffer, (s), strlen(s)) == 0)
    sprintf(what, "message %d property %.*s (type %d, %d bytes)", index,
            (int)impo.ReturnedName.VSLength, nameBuffer, Type, DataLength);
    if (NAMED("text"))
      check(Type == MQTYPE_STRING && DataLength == (MQLONG)strlen(expectedText) &&
            memcmp(value, expectedText, (size_t)DataLength) == 0, what);
    else if (NAMED("count"))
      check(Type == MQTYPE_INT32 && *(PMQLONG)value == 1000 + index, what);
    else if (NAMED("big"))
      check(Type == MQTYPE_INT64 && *(PMQINT64)value == 5000000000LL + index, what);
    else if (NAMED("small"))
      check(Type == MQTYPE_INT8 && *(PMQINT8)value == -100 - index, what);
    else if (NAMED("short"))
      check(Type == MQTYPE_INT16 && *(PMQINT16)value == -30000 + index, what);
    else if (NAMED("odd"))
      check(Type == MQTYPE_BOOLEAN && *(PMQBOOL)value == index % 2, what);
    else if (NAMED("ratio"))
      check(Type == MQTYPE_FLOAT32 && *(PMQFLOAT32)value == 1.5f * (MQFLOAT32)index, what);
    else if (NAMED("price"))
      check(Type == MQTYPE_FLOAT64 && *(PMQFLOAT64)value == 3.25 * index, what);
    else if (NAMED("raw"))
      check(Type == MQTYPE_BYTE_STRING && DataLength == 4 && value[1] == 0xFF &&
            value[3] == (MQBYTE)index, what);
    else if (NAMED("nothing"))
      check(Type == MQTYPE_NULL && DataLength == 0, what);
    else
      check(0, what);
#undef NAMED
  }
  sprintf(what, "message %d carries 10 properties (saw %d)", index, seen);
  check(seen == 10, what);
}

int main(int argc, char **argv) {
  MQCNO   cno = {MQCNO_DEFAULT};             /* connection options      */
  MQCD    cd = {MQCD_CLIENT_CONN_DEFAULT};   /* client channel          */
  MQCSP   csp = {MQCSP_DEFAULT};             /* user and password       */
  MQOD    od = {MQOD_DEFAULT};               /* object descriptor       */
  MQMD    md = {MQMD_DEFAULT};               /* message descriptor      */
  MQPMO   pmo = {MQPMO_DEFAULT};             /* put message options     */
  MQGMO   gmo = {MQGMO_DEFAULT};             /* get message options     */
  MQCMHO  cmho = {MQCMHO_DEFAULT};           /* create msg handle opts  */
  MQDMHO  dmho = {MQDMHO_DEFAULT};           /* delete msg handle opts  */
  MQHCONN Hcon = MQHC_UNUSABLE_HCONN;
  MQHOBJ  Hobj = MQHO_UNUSABLE_HOBJ;
  MQHOBJ  HobjQmgr = MQHO_UNUSABLE_HOBJ;
  MQHMSG  Hmsg = MQHM_UNUSABLE_HMSG;
  MQLONG  CompCode, Reason, DataLength;
  MQCHAR  QMName[MQ_Q_MGR_NAME_LENGTH + 1] = "QM1";
  MQCHAR  QName[MQ_Q_NAME_LENGTH + 1] = "DEV.QUEUE.1";
  MQBYTE  correlId[MQ_CORREL_ID_LENGTH];
  char    buffer[BUFFER_LENGTH], expected[64], what[128];
  char   *userId = getenv("MQSAMP_USER_ID");
  char   *password = getenv("MQSAMP_PASSWORD");
  MQLONG  i;

  printf("Sample IBMSTYLE start\n");
  if (argc > 1) set_field(QName, MQ_Q_NAME_LENGTH, argv[1]);
  if (argc > 2) set_field(QMName, MQ_Q_MGR_NAME_LENGTH, argv[2]);
  if (!channel_from_mqserver(&cd)) return 1;

  /*------------------------------------------------------------------*/
  /* Connect with an explicit MQCD and MQCSP                          */
  /*------------------------------------------------------------------*/
  if (userId == NULL) userId = "app";
  if (password == NULL) password = "";
  csp.AuthenticationType = MQCSP_AUTH_USER_ID_AND_PWD;
  csp.CSPUserIdPtr = userId;
  csp.CSPUserIdLength = (MQLONG)strlen(userId);
  csp.CSPPasswordPtr = password;
  csp.CSPPasswordLength = (MQLONG)strlen(password);
  cno.Version = MQCNO_VERSION_5;
  cno.Options = MQCNO_CLIENT_BINDING;
  cno.ClientConnPtr = &cd;
  cno.SecurityParmsPtr = &csp;
  MQCONNX(QMName, &cno, &Hcon, &CompCode, &Reason);
  if (!call_ok("MQCONNX", CompCode, Reason, MQRC_NONE)) return 1;
  printf("connected to %s through %.*s at %.*s\n", QMName, MQ_CHANNEL_NAME_LENGTH,
         cd.ChannelName, MQ_CONN_NAME_LENGTH, cd.ConnectionName);

  /*------------------------------------------------------------------*/
  /* Open the queue for output, browse, input and inquire             */
  /*------------------------------------------------------------------*/
  set_field(od.ObjectName, MQ_Q_NAME_LENGTH, QName);
  MQOPEN(Hcon, &od,
         MQOO_OUTPUT | MQOO_BROWSE | MQOO_INPUT_AS_Q_DEF | MQOO_INQUIRE | MQOO_FAIL_IF_QUIESCING,
         &Hobj, &CompCode, &Reason);
  if (!call_ok("MQOPEN", CompCode, Reason, MQRC_NONE)) goto disconnect;
  printf("target queue is %s\n", QName);

  /* One CorrelId for this run's messages, so other traffic cannot confuse the checks. */
  snprintf(buffer, sizeof buffer, "IBMSTYLE%08lx%08lx", (unsigned long)getpid(),
           (unsigned long)time(NULL));
  memset(correlId, 0, sizeof correlId);
  memcpy(correlId, buffer, strlen(buffer) < sizeof correlId ? strlen(buffer) : sizeof correlId);

  /*------------------------------------------------------------------*/
  /* Put the messages, each with its properties                       */
  /*------------------------------------------------------------------*/
  MQCRTMH(Hcon, &cmho, &Hmsg, &CompCode, &Reason);
  if (!call_ok("MQCRTMH", CompCode, Reason, MQRC_NONE)) goto close;
  for (i = 1; i <= MESSAGES; i++) {
    set_properties(Hcon, Hmsg, i);
    memcpy(md.Format, MQFMT_STRING, (size_t)MQ_FORMAT_LENGTH);
    memcpy(md.MsgId, MQMI_NONE, sizeof md.MsgId);
    memcpy(md.CorrelId, correlId, sizeof md.CorrelId);
    md.Persistence = MQPER_NOT_PERSISTENT;
    pmo.Version = MQPMO_VERSION_3;
    pmo.Options = MQPMO_NO_SYNCPOINT | MQPMO_NEW_MSG_ID | MQPMO_FAIL_IF_QUIESCING;
    pmo.OriginalMsgHandle = Hmsg;
    sprintf(buffer, "IBM-style message %d", i);
    MQPUT(Hcon, Hobj, &md, &pmo, (MQLONG)strlen(buffer), buffer, &CompCode, &Reason);
    if (!call_ok("MQPUT", CompCode, Reason, MQRC_NONE)) goto close;
    printf("put '%s'\n", buffer);
  }

  /*------------------------------------------------------------------*/
  /* Browse them: payload, descriptor and properties                  */
  /*------------------------------------------------------------------*/
  gmo.Version = MQGMO_VERSION_4;
  gmo.MatchOptions = MQMO_MATCH_CORREL_ID;
  gmo.MsgHandle = Hmsg;
  for (i = 1; i <= MESSAGES; i++) {
    MQMD browsed = {MQMD_DEFAULT};
    memcpy(browsed.CorrelId, correlId, sizeof browsed.CorrelId);
    gmo.Options = (i == 1 ? MQGMO_BROWSE_FIRST : MQGMO_BROWSE_NEXT) | MQGMO_NO_WAIT |
                  MQGMO_PROPERTIES_IN_HANDLE | MQGMO_FAIL_IF_QUIESCING;
    MQGET(Hcon, Hobj, &browsed, &gmo, sizeof buffer - 1, buffer, &DataLength, &CompCode,
          &Reason);
    if (!call_ok("MQGET (browse)", CompCode, Reason, MQRC_NONE)) goto close;
    buffer[DataLength] = '\0';
    printf("browsed '%s'\n", buffer);
    sprintf(expected, "IBM-style message %d", i);
    sprintf(what, "browse %d returns '%s'", i, expected);
    check(strcmp(buffer, expected) == 0, what);
    check(memcmp(browsed.Format, MQFMT_STRING, MQ_FORMAT_LENGTH) == 0, "Format is MQSTR");
    check(browsed.Persistence == MQPER_NOT_PERSISTENT, "Persistence is kept");
    check(browsed.MsgType == MQMT_DATAGRAM, "MsgType is datagram");
    check(memcmp(browsed.MsgId, MQMI_NONE, MQ_MSG_ID_LENGTH) != 0, "MsgId was generated");
    check(browsed.PutDate[0] == '2', "PutDate is set");
    check_properties(Hcon, Hmsg, i);
  }
  gmo.Options = MQGMO_BROWSE_NEXT | MQGMO_NO_WAIT;
  MQGET(Hcon, Hobj, &md, &gmo, sizeof buffer, buffer, &DataLength, &CompCode, &Reason);
  call_ok("MQGET (browse past the last)", CompCode, Reason, MQRC_NO_MSG_AVAILABLE);

  /*------------------------------------------------------------------*/
  /* Inquire the queue while the messages are on it                   */
  /*------------------------------------------------------------------*/
  {
    MQLONG selectors[] = {MQIA_CURRENT_Q_DEPTH, MQIA_MAX_Q_DEPTH, MQIA_Q_TYPE,
                          MQIA_MAX_MSG_LENGTH, MQCA_Q_NAME};
    MQLONG intAttrs[4];
    MQCHAR charAttrs[MQ_Q_NAME_LENGTH];
    MQINQ(Hcon, Hobj, 5, selectors, 4, intAttrs, MQ_Q_NAME_LENGTH, charAttrs, &CompCode,
          &Reason);
    if (call_ok("MQINQ (queue)", CompCode, Reason, MQRC_NONE)) {
      printf("queue %.*s: CURDEPTH %d MAXDEPTH %d QTYPE %d MAXMSGL %d\n",
             trimmed(charAttrs, MQ_Q_NAME_LENGTH), charAttrs, intAttrs[0], intAttrs[1],
             intAttrs[2], intAttrs[3]);
      check(intAttrs[0] >= MESSAGES, "CURDEPTH counts the messages");
      check(intAttrs[1] >= intAttrs[0], "MAXDEPTH is at least CURDEPTH");
      check(intAttrs[2] == MQQT_LOCAL, "QTYPE is local");
      check(intAttrs[3] >= BUFFER_LENGTH, "MAXMSGL is at least the buffer");
      check(field_equals(charAttrs, MQ_Q_NAME_LENGTH, QName), "Q_NAME is the queue's name");
    }
  }

  /*------------------------------------------------------------------*/
  /* Get them, in order, then find none left                          */
  /*------------------------------------------------------------------*/
  gmo.Version = MQGMO_VERSION_2;
  gmo.MatchOptions = MQMO_MATCH_CORREL_ID;
  for (i = 1; i <= MESSAGES + 1; i++) {
    MQMD got = {MQMD_DEFAULT};
    memcpy(got.CorrelId, correlId, sizeof got.CorrelId);
    gmo.Options = MQGMO_WAIT | MQGMO_NO_SYNCPOINT | MQGMO_FAIL_IF_QUIESCING;
    gmo.WaitInterval = i <= MESSAGES ? 5000 : 100;
    MQGET(Hcon, Hobj, &got, &gmo, sizeof buffer - 1, buffer, &DataLength, &CompCode, &Reason);
    if (i > MESSAGES) {
      call_ok("MQGET (after the last)", CompCode, Reason, MQRC_NO_MSG_AVAILABLE);
      break;
    }
    if (!call_ok("MQGET", CompCode, Reason, MQRC_NONE)) break;
    buffer[DataLength] = '\0';
    printf("got '%s'\n", buffer);
    sprintf(expected, "IBM-style message %d", i);
    sprintf(what, "get %d returns '%s'", i, expected);
    check(strcmp(buffer, expected) == 0, what);
  }

  /*------------------------------------------------------------------*/
  /* Inquire the queue manager                                        */
  /*------------------------------------------------------------------*/
  {
    MQOD   qmgrOd = {MQOD_DEFAULT};
    MQLONG selectors[] = {MQIA_COMMAND_LEVEL, MQIA_PLATFORM, MQIA_MAX_PRIORITY,
                          MQCA_Q_MGR_NAME, MQCA_DEAD_LETTER_Q_NAME};
    MQLONG intAttrs[3];
    MQCHAR charAttrs[MQ_Q_MGR_NAME_LENGTH + MQ_Q_NAME_LENGTH];
    qmgrOd.ObjectType = MQOT_Q_MGR;
    MQOPEN(Hcon, &qmgrOd, MQOO_INQUIRE | MQOO_FAIL_IF_QUIESCING, &HobjQmgr, &CompCode, &Reason);
    if (call_ok("MQOPEN (queue manager)", CompCode, Reason, MQRC_NONE)) {
      MQINQ(Hcon, HobjQmgr, 5, selectors, 3, intAttrs, sizeof charAttrs, charAttrs, &CompCode,
            &Reason);
      if (call_ok("MQINQ (queue manager)", CompCode, Reason, MQRC_NONE)) {
        printf("queue manager %.*s: CMDLEVEL %d PLATFORM %s MAXPRTY %d DEADQ %.*s\n",
               trimmed(charAttrs, MQ_Q_MGR_NAME_LENGTH), charAttrs, intAttrs[0],
               MQPL_STR(intAttrs[1]), intAttrs[2],
               trimmed(charAttrs + MQ_Q_MGR_NAME_LENGTH, MQ_Q_NAME_LENGTH),
               charAttrs + MQ_Q_MGR_NAME_LENGTH);
        check(intAttrs[0] >= MQCMDL_LEVEL_900, "CMDLEVEL is 900 or later");
        check(intAttrs[1] == MQPL_UNIX, "PLATFORM is MQPL_UNIX");
        check(intAttrs[2] == 9, "MAXPRTY is 9");
        check(field_equals(charAttrs, MQ_Q_MGR_NAME_LENGTH, QMName),
              "Q_MGR_NAME is the name connected to");
      }
      MQCLOSE(Hcon, &HobjQmgr, MQCO_NONE, &CompCode, &Reason);
      call_ok("MQCLOSE (queue manager)", CompCode, Reason, MQRC_NONE);
    }
  }

close:
  if (Hmsg != MQHM_UNUSABLE_HMSG) {
    MQDLTMH(Hcon, &Hmsg, &dmho, &CompCode, &Reason);
    call_ok("MQDLTMH", CompCode, Reason, MQRC_NONE);
  }
  if (Hobj != MQHO_UNUSABLE_HOBJ) {
    MQCLOSE(Hcon, &Hobj, MQCO_NONE, &CompCode, &Reason);
    call_ok("MQCLOSE", CompCode, Reason, MQRC_NONE);
  }
disconnect:
  MQDISC(&Hcon, &CompCode, &Reason);
  call_ok("MQDISC", CompCode, Reason, MQRC_NONE);

  printf("Sample IBMSTYLE end: %s\n", failures ? "FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
