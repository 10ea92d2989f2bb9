/*
 * cmqc.h -- MQI declarations for the mqprobe MQ client stub.
 *
 * Written for this project (not IBM's header). It declares the data types,
 * structures, initial values (the xxx_DEFAULT macros, used as
 * `MQMD md = {MQMD_DEFAULT};`), entry points and entry-point types
 * (MQ_xxx_CALL) of the IBM MQ Message Queue Interface with IBM's documented
 * names, values, field order and 64-bit layout, so that code written for the
 * real client (github.com/ibm-messaging/mq-golang, IBM's C samples) compiles
 * unchanged. Numeric and character constants live in the generated
 * mqstub_values.h and mqstub_strings.h. Structure sizes are checked against
 * the MQxx_LENGTH_n constants in src/layout.c, and every xxx_DEFAULT against
 * its structure in test/defaults.c.
 *
 * As with IBM's header, an application may define MQCCSI_APPL (the CCSID of
 * its MQCHARV strings and property values) before including this file.
 */
#ifndef MQSTUB_CMQC_H
#define MQSTUB_CMQC_H

#include <stddef.h>

#include "mqstub_values.h"
#include "mqstub_strings.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define MQENTRY
#define MQPOINTER *

/* Defined, as by IBM's header, when pointers are 64 bits wide. */
#if defined(_LP64) || defined(__LP64__)
#define MQ_64_BIT
#endif

/* ------------------------------------------------------------------ */
/* Elementary data types                                              */
/* ------------------------------------------------------------------ */
typedef int                MQLONG;
typedef unsigned int       MQULONG;
#if defined(MQ_64_BIT)            /* as IBM's header: long where it is 64 bits */
typedef long               MQINT64;
typedef unsigned long      MQUINT64;
#else
typedef long long          MQINT64;
typedef unsigned long long MQUINT64;
#endif
typedef signed char        MQINT8;
typedef unsigned char      MQUINT8;
typedef short              MQINT16;
typedef unsigned short     MQUINT16;
typedef int                MQINT32;
typedef unsigned int       MQUINT32;
typedef float              MQFLOAT32;
typedef double             MQFLOAT64;
typedef MQLONG             MQBOOL;
typedef char               MQCHAR;
typedef unsigned char      MQBYTE;
typedef MQLONG             MQHCONN;
typedef MQLONG             MQHOBJ;
typedef MQINT64            MQHMSG;
typedef void MQPOINTER     MQPTR;
typedef void               MQVOID;

typedef MQCHAR  MQCHAR4[4];
typedef MQCHAR  MQCHAR8[8];
typedef MQCHAR  MQCHAR12[12];
typedef MQCHAR  MQCHAR20[20];
typedef MQCHAR  MQCHAR28[28];
typedef MQCHAR  MQCHAR32[32];
typedef MQCHAR  MQCHAR48[48];
typedef MQCHAR  MQCHAR64[64];
typedef MQCHAR  MQCHAR128[128];
typedef MQCHAR  MQCHAR256[256];
typedef MQCHAR  MQCHAR264[264];
typedef MQBYTE  MQBYTE4[4];
typedef MQBYTE  MQBYTE8[8];
typedef MQBYTE  MQBYTE16[16];
typedef MQBYTE  MQBYTE24[24];
typedef MQBYTE  MQBYTE32[32];
typedef MQBYTE  MQBYTE40[40];
typedef MQBYTE  MQBYTE128[128];

typedef MQVOID   MQPOINTER PMQVOID;
typedef MQPTR    MQPOINTER PMQPTR;
typedef MQCHAR   MQPOINTER PMQCHAR;
typedef MQBYTE   MQPOINTER PMQBYTE;
typedef MQLONG   MQPOINTER PMQLONG;
typedef MQULONG  MQPOINTER PMQULONG;
typedef MQINT8   MQPOINTER PMQINT8;
typedef MQINT16  MQPOINTER PMQINT16;
typedef MQINT32  MQPOINTER PMQINT32;
typedef MQINT64  MQPOINTER PMQINT64;
typedef MQFLOAT32 MQPOINTER PMQFLOAT32;
typedef MQFLOAT64 MQPOINTER PMQFLOAT64;
typedef MQBOOL   MQPOINTER PMQBOOL;
typedef MQHCONN  MQPOINTER PMQHCONN;
typedef MQHOBJ   MQPOINTER PMQHOBJ;
typedef MQHMSG   MQPOINTER PMQHMSG;

/* Blank fills for fixed-length character fields in the initialisers. */
#define MQSTUB_BLANKS4  ' ',' ',' ',' '
#define MQSTUB_BLANKS8  MQSTUB_BLANKS4,MQSTUB_BLANKS4
#define MQSTUB_BLANKS32 MQSTUB_BLANKS8,MQSTUB_BLANKS8,MQSTUB_BLANKS8,MQSTUB_BLANKS8

/* ------------------------------------------------------------------ */
/* MQCHARV -- variable-length string                                  */
/* ------------------------------------------------------------------ */
typedef struct tagMQCHARV {
  MQPTR   VSPtr;      /* address of the string */
  MQLONG  VSOffset;   /* offset of the string from the start of the owning structure */
  MQLONG  VSBufSize;  /* size of the buffer (output strings) */
  MQLONG  VSLength;   /* length of the string */
  MQLONG  VSCCSID;    /* character set of the string */
} MQCHARV;
typedef MQCHARV MQPOINTER PMQCHARV;
#define MQCHARV_DEFAULT NULL, 0, 0, 0, MQCCSI_APPL

/* MQCHARV names for MQINQMP: every property, every "usr." property. */
#define MQPROP_INQUIRE_ALL     (MQPTR)(char *)"%", 0, 0, 1, MQCCSI_APPL
#define MQPROP_INQUIRE_ALL_USR (MQPTR)(char *)"usr.%", 0, 0, 5, MQCCSI_APPL

/* ------------------------------------------------------------------ */
/* MQMD -- message descriptor                                         */
/* ------------------------------------------------------------------ */
typedef struct tagMQMD {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Report;
  MQLONG    MsgType;
  MQLONG    Expiry;            /* tenths of a second */
  MQLONG    Feedback;
  MQLONG    Encoding;
  MQLONG    CodedCharSetId;
  MQCHAR8   Format;
  MQLONG    Priority;
  MQLONG    Persistence;
  MQBYTE24  MsgId;
  MQBYTE24  CorrelId;
  MQLONG    BackoutCount;
  MQCHAR48  ReplyToQ;
  MQCHAR48  ReplyToQMgr;
  MQCHAR12  UserIdentifier;
  MQBYTE32  AccountingToken;
  MQCHAR32  ApplIdentityData;
  MQLONG    PutApplType;
  MQCHAR28  PutApplName;
  MQCHAR8   PutDate;           /* YYYYMMDD, GMT */
  MQCHAR8   PutTime;           /* HHMMSSTH, GMT */
  MQCHAR4   ApplOriginData;
  /* version 2 */
  MQBYTE24  GroupId;
  MQLONG    MsgSeqNumber;
  MQLONG    Offset;
  MQLONG    MsgFlags;
  MQLONG    OriginalLength;
} MQMD;
typedef MQMD MQPOINTER PMQMD;

/* The version-1 fields' initial values, then version 2's. */
#define MQSTUB_MQMD1_FIELDS(version) \
  {MQMD_STRUC_ID_ARRAY}, version, MQRO_NONE, MQMT_DATAGRAM, MQEI_UNLIMITED, MQFB_NONE, \
  MQENC_NATIVE, MQCCSI_Q_MGR, {MQFMT_NONE_ARRAY}, MQPRI_PRIORITY_AS_Q_DEF, \
  MQPER_PERSISTENCE_AS_Q_DEF, {MQMI_NONE_ARRAY}, {MQCI_NONE_ARRAY}, 0, {""}, {""}, {""}, \
  {MQACT_NONE_ARRAY}, {""}, MQAT_NO_CONTEXT, {""}, {""}, {""}, {""}
#define MQSTUB_MQMD2_FIELDS {MQGI_NONE_ARRAY}, 1, 0, MQMF_NONE, MQOL_UNDEFINED
#define MQMD_DEFAULT MQSTUB_MQMD1_FIELDS(MQMD_VERSION_1), MQSTUB_MQMD2_FIELDS

/* MQMD1 -- the version-1 message descriptor (as carried in MQXQH). */
typedef struct tagMQMD1 {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Report;
  MQLONG    MsgType;
  MQLONG    Expiry;
  MQLONG    Feedback;
  MQLONG    Encoding;
  MQLONG    CodedCharSetId;
  MQCHAR8   Format;
  MQLONG    Priority;
  MQLONG    Persistence;
  MQBYTE24  MsgId;
  MQBYTE24  CorrelId;
  MQLONG    BackoutCount;
  MQCHAR48  ReplyToQ;
  MQCHAR48  ReplyToQMgr;
  MQCHAR12  UserIdentifier;
  MQBYTE32  AccountingToken;
  MQCHAR32  ApplIdentityData;
  MQLONG    PutApplType;
  MQCHAR28  PutApplName;
  MQCHAR8   PutDate;
  MQCHAR8   PutTime;
  MQCHAR4   ApplOriginData;
} MQMD1;
typedef MQMD1 MQPOINTER PMQMD1;
#define MQMD1_DEFAULT MQSTUB_MQMD1_FIELDS(MQMD_VERSION_1)

/* MQMD2 -- the version-2 message descriptor, the same layout as MQMD. */
typedef MQMD MQMD2;
typedef MQMD2 MQPOINTER PMQMD2;
#define MQMD2_DEFAULT MQSTUB_MQMD1_FIELDS(MQMD_VERSION_2), MQSTUB_MQMD2_FIELDS

/* ------------------------------------------------------------------ */
/* MQOD -- object descriptor                                          */
/* ------------------------------------------------------------------ */
typedef struct tagMQOD {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    ObjectType;
  MQCHAR48  ObjectName;
  MQCHAR48  ObjectQMgrName;
  MQCHAR48  DynamicQName;
  MQCHAR12  AlternateUserId;
  /* version 2 */
  MQLONG    RecsPresent;
  MQLONG    KnownDestCount;
  MQLONG    UnknownDestCount;
  MQLONG    InvalidDestCount;
  MQLONG    ObjectRecOffset;
  MQLONG    ResponseRecOffset;
  MQPTR     ObjectRecPtr;
  MQPTR     ResponseRecPtr;
  /* version 3 */
  MQBYTE40  AlternateSecurityId;
  MQCHAR48  ResolvedQName;
  MQCHAR48  ResolvedQMgrName;
  /* version 4 */
  MQCHARV   ObjectString;
  MQCHARV   SelectionString;
  MQCHARV   ResObjectString;
  MQLONG    ResolvedType;
} MQOD;
typedef MQOD MQPOINTER PMQOD;
#define MQOD_DEFAULT \
  {MQOD_STRUC_ID_ARRAY}, MQOD_VERSION_1, MQOT_Q, {""}, {""}, {"AMQ.*"}, {""}, \
  0, 0, 0, 0, 0, 0, NULL, NULL, {MQSID_NONE_ARRAY}, {""}, {""}, \
  {MQCHARV_DEFAULT}, {MQCHARV_DEFAULT}, {MQCHARV_DEFAULT}, MQOT_NONE

/* MQOR, MQRR -- object and response records of a distribution list. */
typedef struct tagMQOR {
  MQCHAR48  ObjectName;
  MQCHAR48  ObjectQMgrName;
} MQOR;
typedef MQOR MQPOINTER PMQOR;
#define MQOR_DEFAULT {""}, {""}

typedef struct tagMQRR {
  MQLONG    CompCode;
  MQLONG    Reason;
} MQRR;
typedef MQRR MQPOINTER PMQRR;
#define MQRR_DEFAULT MQCC_OK, MQRC_NONE

/* ------------------------------------------------------------------ */
/* MQPMO -- put-message options                                       */
/* ------------------------------------------------------------------ */
typedef struct tagMQPMO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQLONG    Timeout;
  MQHOBJ    Context;
  MQLONG    KnownDestCount;
  MQLONG    UnknownDestCount;
  MQLONG    InvalidDestCount;
  MQCHAR48  ResolvedQName;
  MQCHAR48  ResolvedQMgrName;
  /* version 2 */
  MQLONG    RecsPresent;
  MQLONG    PutMsgRecFields;
  MQLONG    PutMsgRecOffset;
  MQLONG    ResponseRecOffset;
  MQPTR     PutMsgRecPtr;
  MQPTR     ResponseRecPtr;
  /* version 3 */
  MQHMSG    OriginalMsgHandle;
  MQHMSG    NewMsgHandle;
  MQLONG    Action;
  MQLONG    PubLevel;
} MQPMO;
typedef MQPMO MQPOINTER PMQPMO;
#define MQPMO_DEFAULT \
  {MQPMO_STRUC_ID_ARRAY}, MQPMO_VERSION_1, MQPMO_NONE, -1, 0, 0, 0, 0, {""}, {""}, \
  0, MQPMRF_NONE, 0, 0, NULL, NULL, MQHM_NONE, MQHM_NONE, MQACTP_NEW, 9

/* MQPMR -- put-message record; only the fields MQPMO.PutMsgRecFields names are present. */
typedef struct tagMQPMR {
  MQBYTE24  MsgId;
  MQBYTE24  CorrelId;
  MQBYTE24  GroupId;
  MQLONG    Feedback;
  MQBYTE32  AccountingToken;
} MQPMR;
typedef MQPMR MQPOINTER PMQPMR;

/* ------------------------------------------------------------------ */
/* MQGMO -- get-message options                                       */
/* ------------------------------------------------------------------ */
typedef struct tagMQGMO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQLONG    WaitInterval;      /* milliseconds, or MQWI_UNLIMITED */
  MQLONG    Signal1;
  MQLONG    Signal2;
  MQCHAR48  ResolvedQName;
  /* version 2 */
  MQLONG    MatchOptions;
  MQCHAR    GroupStatus;
  MQCHAR    SegmentStatus;
  MQCHAR    Segmentation;
  MQCHAR    Reserved1;
  /* version 3 */
  MQBYTE16  MsgToken;
  MQLONG    ReturnedLength;
  /* version 4 */
  MQLONG    Reserved2;
  MQHMSG    MsgHandle;
} MQGMO;
typedef MQGMO MQPOINTER PMQGMO;
#define MQGMO_DEFAULT \
  {MQGMO_STRUC_ID_ARRAY}, MQGMO_VERSION_1, MQGMO_NO_WAIT, 0, 0, 0, {""}, \
  MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID, MQGS_NOT_IN_GROUP, MQSS_NOT_A_SEGMENT, \
  MQSEG_INHIBITED, ' ', {MQMTOK_NONE_ARRAY}, MQRL_UNDEFINED, 0, MQHM_NONE

/* ------------------------------------------------------------------ */
/* Connection: MQCSP, MQAIR, MQSCO, MQBNO, MQCNO                      */
/* ------------------------------------------------------------------ */
typedef struct tagMQCSP {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    AuthenticationType;
  MQBYTE4   Reserved1;
  MQPTR     CSPUserIdPtr;
  MQLONG    CSPUserIdOffset;
  MQLONG    CSPUserIdLength;
  MQBYTE8   Reserved2;
  MQPTR     CSPPasswordPtr;
  MQLONG    CSPPasswordOffset;
  MQLONG    CSPPasswordLength;
  /* version 2 */
  MQBYTE8   Reserved3;
  MQPTR     InitialKeyPtr;
  MQLONG    InitialKeyOffset;
  MQLONG    InitialKeyLength;
  /* version 3 */
  MQBYTE8   Reserved4;
  MQPTR     TokenPtr;
  MQLONG    TokenOffset;
  MQLONG    TokenLength;
} MQCSP;
typedef MQCSP MQPOINTER PMQCSP;
#define MQCSP_DEFAULT \
  {MQCSP_STRUC_ID_ARRAY}, MQCSP_VERSION_1, MQCSP_AUTH_NONE, {0}, NULL, 0, 0, {0}, \
  NULL, 0, 0, {0}, NULL, 0, 0, {0}, NULL, 0, 0

typedef struct tagMQAIR {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    AuthInfoType;
  MQCHAR264 AuthInfoConnName;
  PMQCHAR   LDAPUserNamePtr;
  MQLONG    LDAPUserNameOffset;
  MQLONG    LDAPUserNameLength;
  MQCHAR32  LDAPPassword;
  /* version 2 */
  MQCHAR256 OCSPResponderURL;
} MQAIR;
typedef MQAIR MQPOINTER PMQAIR;
#define MQAIR_DEFAULT \
  {MQAIR_STRUC_ID_ARRAY}, MQAIR_VERSION_1, MQAIT_CRL_LDAP, {""}, NULL, 0, 0, {""}, {""}

typedef struct tagMQSCO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQCHAR256 KeyRepository;
  MQCHAR256 CryptoHardware;
  MQLONG    AuthInfoRecCount;
  MQLONG    AuthInfoRecOffset;
  PMQAIR    AuthInfoRecPtr;
  /* version 2 */
  MQLONG    KeyResetCount;
  MQLONG    FipsRequired;
  /* version 3 */
  MQLONG    EncryptionPolicySuiteB[4];
  /* version 4 */
  MQLONG    CertificateValPolicy;
  /* version 5 */
  MQCHAR64  CertificateLabel;
  /* version 6 */
  MQPTR     KeyRepoPasswordPtr;
  MQLONG    KeyRepoPasswordOffset;
  MQLONG    KeyRepoPasswordLength;
  /* version 7 */
  MQLONG    HTTPSCertValidation;
  MQLONG    HTTPSCertRevocation;
  MQPTR     HTTPSKeyStorePtr;
  MQLONG    HTTPSKeyStoreOffset;
  MQLONG    HTTPSKeyStoreLength;
} MQSCO;
typedef MQSCO MQPOINTER PMQSCO;
#define MQSCO_DEFAULT \
  {MQSCO_STRUC_ID_ARRAY}, MQSCO_VERSION_1, {""}, {""}, 0, 0, NULL, \
  MQSCO_RESET_COUNT_DEFAULT, MQSSL_FIPS_NO, \
  {MQ_SUITE_B_NONE, MQ_SUITE_B_NOT_AVAILABLE, MQ_SUITE_B_NOT_AVAILABLE, MQ_SUITE_B_NOT_AVAILABLE}, \
  MQ_CERT_VAL_POLICY_DEFAULT, {""}, NULL, 0, 0, \
  MQ_HTTPSCERTVAL_DEFAULT, MQ_HTTPSCERTREV_DEFAULT, NULL, 0, 0

typedef struct tagMQBNO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    ApplType;
  MQLONG    Timeout;
  MQLONG    Options;
} MQBNO;
typedef MQBNO MQPOINTER PMQBNO;
#define MQBNO_DEFAULT \
  {MQBNO_STRUC_ID_ARRAY}, MQBNO_VERSION_1, MQBNO_BALTYPE_SIMPLE, MQBNO_TIMEOUT_AS_DEFAULT, \
  MQBNO_OPTIONS_NONE

typedef struct tagMQCNO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  /* version 2 */
  MQLONG    ClientConnOffset;
  MQPTR     ClientConnPtr;      /* -> MQCD */
  /* version 3 */
  MQBYTE128 ConnTag;
  /* version 4 */
  PMQSCO    SSLConfigPtr;
  MQLONG    SSLConfigOffset;
  /* version 5 */
  MQBYTE24  ConnectionId;       /* output */
  MQLONG    SecurityParmsOffset;
  PMQCSP    SecurityParmsPtr;
  /* version 6 */
  PMQCHAR   CCDTUrlPtr;
  MQLONG    CCDTUrlOffset;
  MQLONG    CCDTUrlLength;
  MQBYTE8   Reserved;
  /* version 7 */
  MQCHAR28  ApplName;
  MQBYTE4   Reserved2;
  /* version 8 */
  PMQBNO    BalanceParmsPtr;
  MQLONG    BalanceParmsOffset;
  MQBYTE4   Reserved3;
} MQCNO;
typedef MQCNO MQPOINTER PMQCNO;
#define MQCNO_DEFAULT \
  {MQCNO_STRUC_ID_ARRAY}, MQCNO_VERSION_1, MQCNO_NONE, 0, NULL, {MQCT_NONE_ARRAY}, NULL, 0, \
  {MQCONNID_NONE_ARRAY}, 0, NULL, NULL, 0, 0, {0}, {MQAN_NONE_ARRAY}, {0}, NULL, 0, {0}

/* ------------------------------------------------------------------ */
/* Message handles and properties                                     */
/* ------------------------------------------------------------------ */
typedef struct tagMQCMHO { MQCHAR4 StrucId; MQLONG Version; MQLONG Options; } MQCMHO;
typedef MQCMHO MQPOINTER PMQCMHO;
#define MQCMHO_DEFAULT {MQCMHO_STRUC_ID_ARRAY}, MQCMHO_VERSION_1, MQCMHO_DEFAULT_VALIDATION

typedef struct tagMQDMHO { MQCHAR4 StrucId; MQLONG Version; MQLONG Options; } MQDMHO;
typedef MQDMHO MQPOINTER PMQDMHO;
#define MQDMHO_DEFAULT {MQDMHO_STRUC_ID_ARRAY}, MQDMHO_VERSION_1, MQDMHO_NONE

typedef struct tagMQDMPO { MQCHAR4 StrucId; MQLONG Version; MQLONG Options; } MQDMPO;
typedef MQDMPO MQPOINTER PMQDMPO;
#define MQDMPO_DEFAULT {MQDMPO_STRUC_ID_ARRAY}, MQDMPO_VERSION_1, MQDMPO_DEL_FIRST

/* MQMHBO, MQBMHO -- message handle to buffer, buffer to message handle (MQMHBUF, MQBUFMH). */
typedef struct tagMQMHBO { MQCHAR4 StrucId; MQLONG Version; MQLONG Options; } MQMHBO;
typedef MQMHBO MQPOINTER PMQMHBO;
#define MQMHBO_DEFAULT {MQMHBO_STRUC_ID_ARRAY}, MQMHBO_VERSION_1, MQMHBO_PROPERTIES_IN_MQRFH2

typedef struct tagMQBMHO { MQCHAR4 StrucId; MQLONG Version; MQLONG Options; } MQBMHO;
typedef MQBMHO MQPOINTER PMQBMHO;
#define MQBMHO_DEFAULT {MQBMHO_STRUC_ID_ARRAY}, MQBMHO_VERSION_1, MQBMHO_DELETE_PROPERTIES

typedef struct tagMQSMPO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQLONG    ValueEncoding;
  MQLONG    ValueCCSID;
} MQSMPO;
typedef MQSMPO MQPOINTER PMQSMPO;
#define MQSMPO_DEFAULT \
  {MQSMPO_STRUC_ID_ARRAY}, MQSMPO_VERSION_1, MQSMPO_SET_FIRST, MQENC_NATIVE, MQCCSI_APPL

typedef struct tagMQIMPO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQLONG    RequestedEncoding;
  MQLONG    RequestedCCSID;
  MQLONG    ReturnedEncoding;
  MQLONG    ReturnedCCSID;
  MQLONG    Reserved1;
  MQCHARV   ReturnedName;
  MQCHAR8   TypeString;
} MQIMPO;
typedef MQIMPO MQPOINTER PMQIMPO;
#define MQIMPO_DEFAULT \
  {MQIMPO_STRUC_ID_ARRAY}, MQIMPO_VERSION_1, MQIMPO_INQ_FIRST, MQENC_NATIVE, MQCCSI_APPL, \
  MQENC_NATIVE, 0, 0, {MQCHARV_DEFAULT}, {""}

typedef struct tagMQPD {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQLONG    Support;
  MQLONG    Context;
  MQLONG    CopyOptions;
} MQPD;
typedef MQPD MQPOINTER PMQPD;
#define MQPD_DEFAULT \
  {MQPD_STRUC_ID_ARRAY}, MQPD_VERSION_1, MQPD_NONE, MQPD_SUPPORT_OPTIONAL, MQPD_NO_CONTEXT, \
  MQCOPY_DEFAULT

/* ------------------------------------------------------------------ */
/* Asynchronous consume: MQCBD, MQCBC, MQCTLO                         */
/* ------------------------------------------------------------------ */
typedef struct tagMQCBD {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    CallbackType;
  MQLONG    Options;
  MQPTR     CallbackArea;
  MQPTR     CallbackFunction;
  MQCHAR128 CallbackName;
  MQLONG    MaxMsgLength;
} MQCBD;
typedef MQCBD MQPOINTER PMQCBD;
#define MQCBD_DEFAULT \
  {MQCBD_STRUC_ID_ARRAY}, MQCBD_VERSION_1, MQCBT_MESSAGE_CONSUMER, MQCBDO_NONE, NULL, NULL, \
  {""}, MQCBD_FULL_MSG_LENGTH

typedef struct tagMQCBC {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    CallType;
  MQHOBJ    Hobj;
  MQPTR     CallbackArea;
  MQPTR     ConnectionArea;
  MQLONG    CompCode;
  MQLONG    Reason;
  MQLONG    State;
  MQLONG    DataLength;
  MQLONG    BufferLength;
  MQLONG    Flags;
  /* version 2 */
  MQLONG    ReconnectDelay;
} MQCBC;
typedef MQCBC MQPOINTER PMQCBC;
/* No MQCBC_DEFAULT: the queue manager fills MQCBC in; IBM gives it no initial values. */

typedef struct tagMQCTLO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQLONG    Reserved;
  MQPTR     ConnectionArea;
} MQCTLO;
typedef MQCTLO MQPOINTER PMQCTLO;
#define MQCTLO_DEFAULT {MQCTLO_STRUC_ID_ARRAY}, MQCTLO_VERSION_1, MQCTLO_NONE, -1, NULL

/* ------------------------------------------------------------------ */
/* Publish/subscribe and status: MQSD, MQSRO, MQSTS; MQBO             */
/* ------------------------------------------------------------------ */
typedef struct tagMQSD {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQCHAR48  ObjectName;
  MQCHAR12  AlternateUserId;
  MQBYTE40  AlternateSecurityId;
  MQLONG    SubExpiry;
  MQCHARV   ObjectString;
  MQCHARV   SubName;
  MQCHARV   SubUserData;
  MQBYTE24  SubCorrelId;
  MQLONG    PubPriority;
  MQBYTE32  PubAccountingToken;
  MQCHAR32  PubApplIdentityData;
  MQCHARV   SelectionString;
  MQLONG    SubLevel;
  MQCHARV   ResObjectString;
} MQSD;
typedef MQSD MQPOINTER PMQSD;
#define MQSD_DEFAULT \
  {MQSD_STRUC_ID_ARRAY}, MQSD_VERSION_1, MQSO_NON_DURABLE, {""}, {""}, {MQSID_NONE_ARRAY}, \
  MQEI_UNLIMITED, {MQCHARV_DEFAULT}, {MQCHARV_DEFAULT}, {MQCHARV_DEFAULT}, \
  {MQCI_NONE_ARRAY}, MQPRI_PRIORITY_AS_PUBLISHED, {MQACT_NONE_ARRAY}, {""}, \
  {MQCHARV_DEFAULT}, 1, {MQCHARV_DEFAULT}

typedef struct tagMQSRO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQLONG    NumPubs;
} MQSRO;
typedef MQSRO MQPOINTER PMQSRO;
#define MQSRO_DEFAULT {MQSRO_STRUC_ID_ARRAY}, MQSRO_VERSION_1, MQSRO_NONE, 0

typedef struct tagMQSTS {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    CompCode;
  MQLONG    Reason;
  MQLONG    PutSuccessCount;
  MQLONG    PutWarningCount;
  MQLONG    PutFailureCount;
  MQLONG    ObjectType;
  MQCHAR48  ObjectName;
  MQCHAR48  ObjectQMgrName;
  MQCHAR48  ResolvedObjectName;
  MQCHAR48  ResolvedQMgrName;
  /* version 2 */
  MQCHARV   ObjectString;
  MQCHARV   SubName;
  MQLONG    OpenOptions;
  MQLONG    SubOptions;
} MQSTS;
typedef MQSTS MQPOINTER PMQSTS;
#define MQSTS_DEFAULT \
  {MQSTS_STRUC_ID_ARRAY}, MQSTS_VERSION_1, MQCC_OK, MQRC_NONE, 0, 0, 0, MQOT_Q, \
  {""}, {""}, {""}, {""}, {MQCHARV_DEFAULT}, {MQCHARV_DEFAULT}, 0, 0

typedef struct tagMQBO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
} MQBO;
typedef MQBO MQPOINTER PMQBO;
#define MQBO_DEFAULT {MQBO_STRUC_ID_ARRAY}, MQBO_VERSION_1, MQBO_NONE

/* ------------------------------------------------------------------ */
/* Message headers                                                    */
/* ------------------------------------------------------------------ */
typedef struct tagMQDLH {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Reason;
  MQCHAR48  DestQName;
  MQCHAR48  DestQMgrName;
  MQLONG    Encoding;
  MQLONG    CodedCharSetId;
  MQCHAR8   Format;
  MQLONG    PutApplType;
  MQCHAR28  PutApplName;
  MQCHAR8   PutDate;
  MQCHAR8   PutTime;
} MQDLH;
typedef MQDLH MQPOINTER PMQDLH;
#define MQDLH_DEFAULT \
  {MQDLH_STRUC_ID_ARRAY}, MQDLH_VERSION_1, MQRC_NONE, {""}, {""}, 0, MQCCSI_UNDEFINED, \
  {MQFMT_NONE_ARRAY}, MQAT_NO_CONTEXT, {""}, {""}, {""}

/* MQRFH, MQRFH2 -- rules and formatting headers (name/value data follows). */
typedef struct tagMQRFH {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    StrucLength;
  MQLONG    Encoding;
  MQLONG    CodedCharSetId;
  MQCHAR8   Format;
  MQLONG    Flags;
} MQRFH;
typedef MQRFH MQPOINTER PMQRFH;
#define MQRFH_DEFAULT \
  {MQRFH_STRUC_ID_ARRAY}, MQRFH_VERSION_1, MQRFH_STRUC_LENGTH_FIXED, MQENC_NATIVE, \
  MQCCSI_UNDEFINED, {MQFMT_NONE_ARRAY}, MQRFH_NONE

typedef struct tagMQRFH2 {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    StrucLength;
  MQLONG    Encoding;
  MQLONG    CodedCharSetId;
  MQCHAR8   Format;
  MQLONG    Flags;
  MQLONG    NameValueCCSID;
} MQRFH2;
typedef MQRFH2 MQPOINTER PMQRFH2;
#define MQRFH2_DEFAULT \
  {MQRFH_STRUC_ID_ARRAY}, MQRFH_VERSION_2, MQRFH_STRUC_LENGTH_FIXED_2, MQENC_NATIVE, \
  MQCCSI_INHERIT, {MQFMT_NONE_ARRAY}, MQRFH_NONE, 1208

/* MQMDE -- message descriptor extension (the MQMD version-2 fields). */
typedef struct tagMQMDE {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    StrucLength;
  MQLONG    Encoding;
  MQLONG    CodedCharSetId;
  MQCHAR8   Format;
  MQLONG    Flags;
  MQBYTE24  GroupId;
  MQLONG    MsgSeqNumber;
  MQLONG    Offset;
  MQLONG    MsgFlags;
  MQLONG    OriginalLength;
} MQMDE;
typedef MQMDE MQPOINTER PMQMDE;
#define MQMDE_DEFAULT \
  {MQMDE_STRUC_ID_ARRAY}, MQMDE_VERSION_2, MQMDE_LENGTH_2, MQENC_NATIVE, MQCCSI_UNDEFINED, \
  {MQFMT_NONE_ARRAY}, MQMDEF_NONE, {MQGI_NONE_ARRAY}, 1, 0, MQMF_NONE, MQOL_UNDEFINED

/* MQDH -- distribution header (MQOR and MQPMR records follow). */
typedef struct tagMQDH {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    StrucLength;
  MQLONG    Encoding;
  MQLONG    CodedCharSetId;
  MQCHAR8   Format;
  MQLONG    Flags;
  MQLONG    PutMsgRecFields;
  MQLONG    RecsPresent;
  MQLONG    ObjectRecOffset;
  MQLONG    PutMsgRecOffset;
} MQDH;
typedef MQDH MQPOINTER PMQDH;
#define MQDH_DEFAULT \
  {MQDH_STRUC_ID_ARRAY}, MQDH_VERSION_1, 0, 0, MQCCSI_UNDEFINED, {MQFMT_NONE_ARRAY}, \
  MQDHF_NONE, MQPMRF_NONE, 0, 0, 0

/* MQXQH -- transmission-queue header. */
typedef struct tagMQXQH {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQCHAR48  RemoteQName;
  MQCHAR48  RemoteQMgrName;
  MQMD1     MsgDesc;
} MQXQH;
typedef MQXQH MQPOINTER PMQXQH;
#define MQXQH_DEFAULT {MQXQH_STRUC_ID_ARRAY}, MQXQH_VERSION_1, {""}, {""}, {MQMD1_DEFAULT}

/* MQRMH -- reference message header. */
typedef struct tagMQRMH {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    StrucLength;
  MQLONG    Encoding;
  MQLONG    CodedCharSetId;
  MQCHAR8   Format;
  MQLONG    Flags;
  MQCHAR8   ObjectType;
  MQBYTE24  ObjectInstanceId;
  MQLONG    SrcEnvLength;
  MQLONG    SrcEnvOffset;
  MQLONG    SrcNameLength;
  MQLONG    SrcNameOffset;
  MQLONG    DestEnvLength;
  MQLONG    DestEnvOffset;
  MQLONG    DestNameLength;
  MQLONG    DestNameOffset;
  MQLONG    DataLogicalLength;
  MQLONG    DataLogicalOffset;
  MQLONG    DataLogicalOffset2;
} MQRMH;
typedef MQRMH MQPOINTER PMQRMH;
#define MQRMH_DEFAULT \
  {MQRMH_STRUC_ID_ARRAY}, MQRMH_VERSION_1, 0, MQENC_NATIVE, MQCCSI_UNDEFINED, \
  {MQFMT_NONE_ARRAY}, MQRMHF_NOT_LAST, {MQSTUB_BLANKS8}, {MQOII_NONE_ARRAY}, \
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0

/* MQWIH -- work information header. */
typedef struct tagMQWIH {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    StrucLength;
  MQLONG    Encoding;
  MQLONG    CodedCharSetId;
  MQCHAR8   Format;
  MQLONG    Flags;
  MQCHAR32  ServiceName;
  MQCHAR8   ServiceStep;
  MQBYTE16  MsgToken;
  MQCHAR32  Reserved;
} MQWIH;
typedef MQWIH MQPOINTER PMQWIH;
#define MQWIH_DEFAULT \
  {MQWIH_STRUC_ID_ARRAY}, MQWIH_VERSION_1, MQWIH_LENGTH_1, 0, MQCCSI_UNDEFINED, \
  {MQFMT_NONE_ARRAY}, MQWIH_NONE, {MQSTUB_BLANKS32}, {MQSTUB_BLANKS8}, {MQMTOK_NONE_ARRAY}, \
  {MQSTUB_BLANKS32}

/* MQCIH -- CICS bridge header. */
typedef struct tagMQCIH {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    StrucLength;
  MQLONG    Encoding;
  MQLONG    CodedCharSetId;
  MQCHAR8   Format;
  MQLONG    Flags;
  MQLONG    ReturnCode;
  MQLONG    CompCode;
  MQLONG    Reason;
  MQLONG    UOWControl;
  MQLONG    GetWaitInterval;
  MQLONG    LinkType;
  MQLONG    OutputDataLength;
  MQLONG    FacilityKeepTime;
  MQLONG    ADSDescriptor;
  MQLONG    ConversationalTask;
  MQLONG    TaskEndStatus;
  MQBYTE8   Facility;
  MQCHAR4   Function;
  MQCHAR4   AbendCode;
  MQCHAR8   Authenticator;
  MQCHAR8   Reserved1;
  MQCHAR8   ReplyToFormat;
  MQCHAR4   RemoteSysId;
  MQCHAR4   RemoteTransId;
  MQCHAR4   TransactionId;
  MQCHAR4   FacilityLike;
  MQCHAR4   AttentionId;
  MQCHAR4   StartCode;
  MQCHAR4   CancelCode;
  MQCHAR4   NextTransactionId;
  MQCHAR8   Reserved2;
  MQCHAR8   Reserved3;
  /* version 2 */
  MQLONG    CursorPosition;
  MQLONG    ErrorOffset;
  MQLONG    InputItem;
  MQLONG    Reserved4;
} MQCIH;
typedef MQCIH MQPOINTER PMQCIH;
#define MQCIH_DEFAULT \
  {MQCIH_STRUC_ID_ARRAY}, MQCIH_VERSION_2, MQCIH_LENGTH_2, 0, MQCCSI_UNDEFINED, \
  {MQFMT_NONE_ARRAY}, MQCIH_NONE, MQCRC_OK, MQCC_OK, MQRC_NONE, MQCUOWC_ONLY, \
  MQCGWI_DEFAULT, MQCLT_PROGRAM, MQCODL_AS_INPUT, 0, MQCADSD_NONE, MQCCT_NO, MQCTES_NOSYNC, \
  {MQCFAC_NONE_ARRAY}, {MQCFUNC_NONE_ARRAY}, {MQSTUB_BLANKS4}, {MQSTUB_BLANKS8}, \
  {MQSTUB_BLANKS8}, {MQFMT_NONE_ARRAY}, {MQSTUB_BLANKS4}, {MQSTUB_BLANKS4}, \
  {MQSTUB_BLANKS4}, {MQSTUB_BLANKS4}, {MQSTUB_BLANKS4}, {MQCSC_NONE_ARRAY}, \
  {MQSTUB_BLANKS4}, {MQSTUB_BLANKS4}, {MQSTUB_BLANKS8}, {MQSTUB_BLANKS8}, 0, 0, 0, 0

/* MQIIH -- IMS bridge header. */
typedef struct tagMQIIH {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    StrucLength;
  MQLONG    Encoding;
  MQLONG    CodedCharSetId;
  MQCHAR8   Format;
  MQLONG    Flags;
  MQCHAR8   LTermOverride;
  MQCHAR8   MFSMapName;
  MQCHAR8   ReplyToFormat;
  MQCHAR8   Authenticator;
  MQBYTE16  TranInstanceId;
  MQCHAR    TranState;
  MQCHAR    CommitMode;
  MQCHAR    SecurityScope;
  MQCHAR    Reserved;
} MQIIH;
typedef MQIIH MQPOINTER PMQIIH;
#define MQIIH_DEFAULT \
  {MQIIH_STRUC_ID_ARRAY}, MQIIH_VERSION_1, MQIIH_LENGTH_1, 0, MQCCSI_UNDEFINED, \
  {MQFMT_NONE_ARRAY}, MQIIH_NONE, {MQSTUB_BLANKS8}, {MQSTUB_BLANKS8}, {MQFMT_NONE_ARRAY}, \
  {MQIAUT_NONE_ARRAY}, {MQITII_NONE_ARRAY}, MQITS_NOT_IN_CONVERSATION, \
  MQICM_COMMIT_THEN_SEND, MQISS_CHECK, ' '

/* MQTM, MQTMC2 -- trigger message, and its character form passed to triggered programs. */
typedef struct tagMQTM {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQCHAR48  QName;
  MQCHAR48  ProcessName;
  MQCHAR64  TriggerData;
  MQLONG    ApplType;
  MQCHAR256 ApplId;
  MQCHAR128 EnvData;
  MQCHAR128 UserData;
} MQTM;
typedef MQTM MQPOINTER PMQTM;
#define MQTM_DEFAULT \
  {MQTM_STRUC_ID_ARRAY}, MQTM_VERSION_1, {""}, {""}, {""}, 0, {""}, {""}, {""}

typedef struct tagMQTMC2 {
  MQCHAR4   StrucId;
  MQCHAR4   Version;
  MQCHAR48  QName;
  MQCHAR48  ProcessName;
  MQCHAR64  TriggerData;
  MQCHAR4   ApplType;
  MQCHAR256 ApplId;
  MQCHAR128 EnvData;
  MQCHAR128 UserData;
  MQCHAR48  QMgrName;
} MQTMC2;
typedef MQTMC2 MQPOINTER PMQTMC2;
#define MQTMC2_DEFAULT \
  {MQTMC_STRUC_ID_ARRAY}, {MQTMC_VERSION_2_ARRAY}, {""}, {""}, {""}, {""}, {""}, {""}, {""}, {""}

/* ------------------------------------------------------------------ */
/* MQI entry points. Each call MQxxx also has IBM's function type     */
/* MQ_xxx_CALL and pointer type PMQ_xxx_CALL, for programs that load  */
/* the library at run time or fill an entry-point table.              */
/* ------------------------------------------------------------------ */

void MQENTRY MQBACK(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_BACK_CALL(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_BACK_CALL MQPOINTER PMQ_BACK_CALL;

void MQENTRY MQBEGIN(MQHCONN Hconn, PMQVOID pBeginOptions, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_BEGIN_CALL(MQHCONN Hconn, PMQVOID pBeginOptions, PMQLONG pCompCode,
                                   PMQLONG pReason);
typedef MQ_BEGIN_CALL MQPOINTER PMQ_BEGIN_CALL;

void MQENTRY MQBUFMH(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pBufMsgHOpts, PMQVOID pMsgDesc,
                     MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pDataLength,
                     PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_BUFMH_CALL(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pBufMsgHOpts,
                                   PMQVOID pMsgDesc, MQLONG BufferLength, PMQVOID pBuffer,
                                   PMQLONG pDataLength, PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_BUFMH_CALL MQPOINTER PMQ_BUFMH_CALL;

void MQENTRY MQCB(MQHCONN Hconn, MQLONG Operation, PMQVOID pCallbackDesc, MQHOBJ Hobj,
                  PMQVOID pMsgDesc, PMQVOID pGetMsgOpts, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_CB_CALL(MQHCONN Hconn, MQLONG Operation, PMQVOID pCallbackDesc,
                                MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pGetMsgOpts,
                                PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_CB_CALL MQPOINTER PMQ_CB_CALL;

void MQENTRY MQCLOSE(MQHCONN Hconn, PMQHOBJ pHobj, MQLONG Options, PMQLONG pCompCode,
                     PMQLONG pReason);
typedef void MQENTRY MQ_CLOSE_CALL(MQHCONN Hconn, PMQHOBJ pHobj, MQLONG Options,
                                   PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_CLOSE_CALL MQPOINTER PMQ_CLOSE_CALL;

void MQENTRY MQCMIT(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_CMIT_CALL(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_CMIT_CALL MQPOINTER PMQ_CMIT_CALL;

void MQENTRY MQCONN(PMQCHAR pQMgrName, PMQHCONN pHconn, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_CONN_CALL(PMQCHAR pQMgrName, PMQHCONN pHconn, PMQLONG pCompCode,
                                  PMQLONG pReason);
typedef MQ_CONN_CALL MQPOINTER PMQ_CONN_CALL;

void MQENTRY MQCONNX(PMQCHAR pQMgrName, PMQCNO pConnectOpts, PMQHCONN pHconn, PMQLONG pCompCode,
                     PMQLONG pReason);
typedef void MQENTRY MQ_CONNX_CALL(PMQCHAR pQMgrName, PMQCNO pConnectOpts, PMQHCONN pHconn,
                                   PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_CONNX_CALL MQPOINTER PMQ_CONNX_CALL;

void MQENTRY MQCRTMH(MQHCONN Hconn, PMQVOID pCrtMsgHOpts, PMQHMSG pHmsg, PMQLONG pCompCode,
                     PMQLONG pReason);
typedef void MQENTRY MQ_CRTMH_CALL(MQHCONN Hconn, PMQVOID pCrtMsgHOpts, PMQHMSG pHmsg,
                                   PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_CRTMH_CALL MQPOINTER PMQ_CRTMH_CALL;

void MQENTRY MQCTL(MQHCONN Hconn, MQLONG Operation, PMQVOID pControlOpts, PMQLONG pCompCode,
                   PMQLONG pReason);
typedef void MQENTRY MQ_CTL_CALL(MQHCONN Hconn, MQLONG Operation, PMQVOID pControlOpts,
                                 PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_CTL_CALL MQPOINTER PMQ_CTL_CALL;

void MQENTRY MQDISC(PMQHCONN pHconn, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_DISC_CALL(PMQHCONN pHconn, PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_DISC_CALL MQPOINTER PMQ_DISC_CALL;

void MQENTRY MQDLTMH(MQHCONN Hconn, PMQHMSG pHmsg, PMQVOID pDltMsgHOpts, PMQLONG pCompCode,
                     PMQLONG pReason);
typedef void MQENTRY MQ_DLTMH_CALL(MQHCONN Hconn, PMQHMSG pHmsg, PMQVOID pDltMsgHOpts,
                                   PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_DLTMH_CALL MQPOINTER PMQ_DLTMH_CALL;

void MQENTRY MQDLTMP(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pDltPropOpts, PMQVOID pName,
                     PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_DLTMP_CALL(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pDltPropOpts,
                                   PMQVOID pName, PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_DLTMP_CALL MQPOINTER PMQ_DLTMP_CALL;

void MQENTRY MQGET(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pGetMsgOpts,
                   MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pDataLength, PMQLONG pCompCode,
                   PMQLONG pReason);
typedef void MQENTRY MQ_GET_CALL(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc,
                                 PMQVOID pGetMsgOpts, MQLONG BufferLength, PMQVOID pBuffer,
                                 PMQLONG pDataLength, PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_GET_CALL MQPOINTER PMQ_GET_CALL;

void MQENTRY MQINQ(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount, PMQLONG pSelectors,
                   MQLONG IntAttrCount, PMQLONG pIntAttrs, MQLONG CharAttrLength,
                   PMQCHAR pCharAttrs, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_INQ_CALL(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount,
                                 PMQLONG pSelectors, MQLONG IntAttrCount, PMQLONG pIntAttrs,
                                 MQLONG CharAttrLength, PMQCHAR pCharAttrs, PMQLONG pCompCode,
                                 PMQLONG pReason);
typedef MQ_INQ_CALL MQPOINTER PMQ_INQ_CALL;

void MQENTRY MQINQMP(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pInqPropOpts, PMQVOID pName,
                     PMQVOID pPropDesc, PMQLONG pType, MQLONG ValueLength, PMQVOID pValue,
                     PMQLONG pDataLength, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_INQMP_CALL(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pInqPropOpts,
                                   PMQVOID pName, PMQVOID pPropDesc, PMQLONG pType,
                                   MQLONG ValueLength, PMQVOID pValue, PMQLONG pDataLength,
                                   PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_INQMP_CALL MQPOINTER PMQ_INQMP_CALL;

void MQENTRY MQMHBUF(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pMsgHBufOpts, PMQVOID pName,
                     PMQVOID pMsgDesc, MQLONG BufferLength, PMQVOID pBuffer,
                     PMQLONG pDataLength, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_MHBUF_CALL(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pMsgHBufOpts,
                                   PMQVOID pName, PMQVOID pMsgDesc, MQLONG BufferLength,
                                   PMQVOID pBuffer, PMQLONG pDataLength, PMQLONG pCompCode,
                                   PMQLONG pReason);
typedef MQ_MHBUF_CALL MQPOINTER PMQ_MHBUF_CALL;

void MQENTRY MQOPEN(MQHCONN Hconn, PMQVOID pObjDesc, MQLONG Options, PMQHOBJ pHobj,
                    PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_OPEN_CALL(MQHCONN Hconn, PMQVOID pObjDesc, MQLONG Options,
                                  PMQHOBJ pHobj, PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_OPEN_CALL MQPOINTER PMQ_OPEN_CALL;

void MQENTRY MQPUT(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
                   MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_PUT_CALL(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc,
                                 PMQVOID pPutMsgOpts, MQLONG BufferLength, PMQVOID pBuffer,
                                 PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_PUT_CALL MQPOINTER PMQ_PUT_CALL;

void MQENTRY MQPUT1(MQHCONN Hconn, PMQVOID pObjDesc, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
                    MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_PUT1_CALL(MQHCONN Hconn, PMQVOID pObjDesc, PMQVOID pMsgDesc,
                                  PMQVOID pPutMsgOpts, MQLONG BufferLength, PMQVOID pBuffer,
                                  PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_PUT1_CALL MQPOINTER PMQ_PUT1_CALL;

void MQENTRY MQSET(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount, PMQLONG pSelectors,
                   MQLONG IntAttrCount, PMQLONG pIntAttrs, MQLONG CharAttrLength,
                   PMQCHAR pCharAttrs, PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_SET_CALL(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount,
                                 PMQLONG pSelectors, MQLONG IntAttrCount, PMQLONG pIntAttrs,
                                 MQLONG CharAttrLength, PMQCHAR pCharAttrs, PMQLONG pCompCode,
                                 PMQLONG pReason);
typedef MQ_SET_CALL MQPOINTER PMQ_SET_CALL;

void MQENTRY MQSETMP(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pSetPropOpts, PMQVOID pName,
                     PMQVOID pPropDesc, MQLONG Type, MQLONG ValueLength, PMQVOID pValue,
                     PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_SETMP_CALL(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pSetPropOpts,
                                   PMQVOID pName, PMQVOID pPropDesc, MQLONG Type,
                                   MQLONG ValueLength, PMQVOID pValue, PMQLONG pCompCode,
                                   PMQLONG pReason);
typedef MQ_SETMP_CALL MQPOINTER PMQ_SETMP_CALL;

void MQENTRY MQSTAT(MQHCONN Hconn, MQLONG Type, PMQVOID pStatus, PMQLONG pCompCode,
                    PMQLONG pReason);
typedef void MQENTRY MQ_STAT_CALL(MQHCONN Hconn, MQLONG Type, PMQVOID pStatus,
                                  PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_STAT_CALL MQPOINTER PMQ_STAT_CALL;

void MQENTRY MQSUB(MQHCONN Hconn, PMQVOID pSubDesc, PMQHOBJ pHobj, PMQHOBJ pHsub,
                   PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_SUB_CALL(MQHCONN Hconn, PMQVOID pSubDesc, PMQHOBJ pHobj, PMQHOBJ pHsub,
                                 PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_SUB_CALL MQPOINTER PMQ_SUB_CALL;

void MQENTRY MQSUBRQ(MQHCONN Hconn, MQHOBJ Hsub, MQLONG Action, PMQVOID pSubRqOpts,
                     PMQLONG pCompCode, PMQLONG pReason);
typedef void MQENTRY MQ_SUBRQ_CALL(MQHCONN Hconn, MQHOBJ Hsub, MQLONG Action,
                                   PMQVOID pSubRqOpts, PMQLONG pCompCode, PMQLONG pReason);
typedef MQ_SUBRQ_CALL MQPOINTER PMQ_SUBRQ_CALL;

#if defined(__cplusplus)
}
#endif

#endif /* MQSTUB_CMQC_H */
