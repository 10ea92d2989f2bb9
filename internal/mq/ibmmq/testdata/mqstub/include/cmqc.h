/*
 * cmqc.h -- MQI declarations for the mqprobe MQ client stub.
 *
 * Written for this project (not IBM's header). It declares the data types,
 * structures and entry points of the IBM MQ Message Queue Interface with
 * IBM's documented names, field order and 64-bit layout, so that code written
 * for the real client (notably github.com/ibm-messaging/mq-golang) compiles
 * unchanged. Numeric constants live in the generated mqstub_values.h.
 * Structure sizes are checked against the MQxx_LENGTH_n constants in
 * src/layout.c.
 */
#ifndef MQSTUB_CMQC_H
#define MQSTUB_CMQC_H

#include "mqstub_values.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define MQENTRY
#define MQPOINTER *

/* ------------------------------------------------------------------ */
/* Elementary data types                                              */
/* ------------------------------------------------------------------ */
typedef int                MQLONG;
typedef unsigned int       MQULONG;
typedef long long          MQINT64;
typedef unsigned long long MQUINT64;
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

/* ------------------------------------------------------------------ */
/* Character constants (blank padded, as the queue manager expects)   */
/* ------------------------------------------------------------------ */
#define MQFMT_NONE               "        "
#define MQFMT_ADMIN              "MQADMIN "
#define MQFMT_CHANNEL_COMPLETED  "MQCHCOM "
#define MQFMT_CICS               "MQCICS  "
#define MQFMT_COMMAND_1          "MQCMD1  "
#define MQFMT_COMMAND_2          "MQCMD2  "
#define MQFMT_DEAD_LETTER_HEADER "MQDEAD  "
#define MQFMT_DIST_HEADER        "MQHDIST "
#define MQFMT_EMBEDDED_PCF       "MQHEPCF "
#define MQFMT_EVENT              "MQEVENT "
#define MQFMT_IMS                "MQIMS   "
#define MQFMT_IMS_VAR_STRING     "MQIMSVS "
#define MQFMT_MD_EXTENSION       "MQHMDE  "
#define MQFMT_PCF                "MQPCF   "
#define MQFMT_REF_MSG_HEADER     "MQHREF  "
#define MQFMT_RF_HEADER          "MQHRF   "
#define MQFMT_RF_HEADER_1        "MQHRF   "
#define MQFMT_RF_HEADER_2        "MQHRF2  "
#define MQFMT_STRING             "MQSTR   "
#define MQFMT_TRIGGER            "MQTRIG  "
#define MQFMT_WORK_INFO_HEADER   "MQHWIH  "
#define MQFMT_XMIT_Q_HEADER      "MQXMIT  "

/* 24 binary zeros: "no message/correlation/group identifier". */
#define MQMI_NONE "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
#define MQCI_NONE "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
#define MQGI_NONE "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
#define MQCI_NEW_SESSION "AMQ!NEW_SESSION_CORRELID"
#define MQACT_NONE "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"

#define MQMD_STRUC_ID    "MD  "
#define MQOD_STRUC_ID    "OD  "
#define MQPMO_STRUC_ID   "PMO "
#define MQGMO_STRUC_ID   "GMO "
#define MQCNO_STRUC_ID   "CNO "
#define MQSCO_STRUC_ID   "SCO "
#define MQCSP_STRUC_ID   "CSP "
#define MQAIR_STRUC_ID   "AIR "
#define MQBNO_STRUC_ID   "BNO "
#define MQBO_STRUC_ID    "BO  "
#define MQCMHO_STRUC_ID  "CMHO"
#define MQDMHO_STRUC_ID  "DMHO"
#define MQSMPO_STRUC_ID  "SMPO"
#define MQIMPO_STRUC_ID  "IMPO"
#define MQDMPO_STRUC_ID  "DMPO"
#define MQPD_STRUC_ID    "PD  "
#define MQCBD_STRUC_ID   "CBD "
#define MQCBC_STRUC_ID   "CBC "
#define MQCTLO_STRUC_ID  "CTLO"
#define MQSD_STRUC_ID    "SD  "
#define MQSRO_STRUC_ID   "SRO "
#define MQSTS_STRUC_ID   "STAT"
#define MQDLH_STRUC_ID   "DLH "
#define MQRFH_STRUC_ID   "RFH "

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
#define MQCHARV_DEFAULT {NULL, 0, 0, 0, MQCCSI_APPL}

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

typedef struct tagMQBNO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    ApplType;
  MQLONG    Timeout;
  MQLONG    Options;
} MQBNO;
typedef MQBNO MQPOINTER PMQBNO;

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

/* ------------------------------------------------------------------ */
/* Message handles and properties                                     */
/* ------------------------------------------------------------------ */
typedef struct tagMQCMHO { MQCHAR4 StrucId; MQLONG Version; MQLONG Options; } MQCMHO;
typedef MQCMHO MQPOINTER PMQCMHO;
typedef struct tagMQDMHO { MQCHAR4 StrucId; MQLONG Version; MQLONG Options; } MQDMHO;
typedef MQDMHO MQPOINTER PMQDMHO;
typedef struct tagMQDMPO { MQCHAR4 StrucId; MQLONG Version; MQLONG Options; } MQDMPO;
typedef MQDMPO MQPOINTER PMQDMPO;

typedef struct tagMQSMPO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQLONG    ValueEncoding;
  MQLONG    ValueCCSID;
} MQSMPO;
typedef MQSMPO MQPOINTER PMQSMPO;

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

typedef struct tagMQPD {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQLONG    Support;
  MQLONG    Context;
  MQLONG    CopyOptions;
} MQPD;
typedef MQPD MQPOINTER PMQPD;

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

typedef struct tagMQCTLO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQLONG    Reserved;
  MQPTR     ConnectionArea;
} MQCTLO;
typedef MQCTLO MQPOINTER PMQCTLO;

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

typedef struct tagMQSRO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
  MQLONG    NumPubs;
} MQSRO;
typedef MQSRO MQPOINTER PMQSRO;

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

typedef struct tagMQBO {
  MQCHAR4   StrucId;
  MQLONG    Version;
  MQLONG    Options;
} MQBO;
typedef MQBO MQPOINTER PMQBO;

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

/* ------------------------------------------------------------------ */
/* MQI entry points                                                   */
/* ------------------------------------------------------------------ */
void MQENTRY MQCONN(PMQCHAR pQMgrName, PMQHCONN pHconn, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQCONNX(PMQCHAR pQMgrName, PMQCNO pConnectOpts, PMQHCONN pHconn,
                     PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQDISC(PMQHCONN pHconn, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQOPEN(MQHCONN Hconn, PMQVOID pObjDesc, MQLONG Options, PMQHOBJ pHobj,
                    PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQCLOSE(MQHCONN Hconn, PMQHOBJ pHobj, MQLONG Options,
                     PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQPUT(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
                   MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQPUT1(MQHCONN Hconn, PMQVOID pObjDesc, PMQVOID pMsgDesc, PMQVOID pPutMsgOpts,
                    MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQGET(MQHCONN Hconn, MQHOBJ Hobj, PMQVOID pMsgDesc, PMQVOID pGetMsgOpts,
                   MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pDataLength,
                   PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQINQ(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount, PMQLONG pSelectors,
                   MQLONG IntAttrCount, PMQLONG pIntAttrs, MQLONG CharAttrLength,
                   PMQCHAR pCharAttrs, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQSET(MQHCONN Hconn, MQHOBJ Hobj, MQLONG SelectorCount, PMQLONG pSelectors,
                   MQLONG IntAttrCount, PMQLONG pIntAttrs, MQLONG CharAttrLength,
                   PMQCHAR pCharAttrs, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQBEGIN(MQHCONN Hconn, PMQVOID pBeginOptions, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQCMIT(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQBACK(MQHCONN Hconn, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQSTAT(MQHCONN Hconn, MQLONG Type, PMQVOID pStatus, PMQLONG pCompCode, PMQLONG pReason);

void MQENTRY MQCRTMH(MQHCONN Hconn, PMQVOID pCrtMsgHOpts, PMQHMSG pHmsg,
                     PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQDLTMH(MQHCONN Hconn, PMQHMSG pHmsg, PMQVOID pDltMsgHOpts,
                     PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQSETMP(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pSetPropOpts, PMQVOID pName,
                     PMQVOID pPropDesc, MQLONG Type, MQLONG ValueLength, PMQVOID pValue,
                     PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQINQMP(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pInqPropOpts, PMQVOID pName,
                     PMQVOID pPropDesc, PMQLONG pType, MQLONG ValueLength, PMQVOID pValue,
                     PMQLONG pDataLength, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQDLTMP(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pDltPropOpts, PMQVOID pName,
                     PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQMHBUF(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pMsgHBufOpts, PMQVOID pName,
                     PMQVOID pMsgDesc, MQLONG BufferLength, PMQVOID pBuffer,
                     PMQLONG pDataLength, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQBUFMH(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pBufMsgHOpts, PMQVOID pMsgDesc,
                     MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pDataLength,
                     PMQLONG pCompCode, PMQLONG pReason);

void MQENTRY MQSUB(MQHCONN Hconn, PMQVOID pSubDesc, PMQHOBJ pHobj, PMQHOBJ pHsub,
                   PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQSUBRQ(MQHCONN Hconn, MQHOBJ Hsub, MQLONG Action, PMQVOID pSubRqOpts,
                     PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQCB(MQHCONN Hconn, MQLONG Operation, PMQVOID pCallbackDesc, MQHOBJ Hobj,
                  PMQVOID pMsgDesc, PMQVOID pGetMsgOpts, PMQLONG pCompCode, PMQLONG pReason);
void MQENTRY MQCTL(MQHCONN Hconn, MQLONG Operation, PMQVOID pControlOpts,
                   PMQLONG pCompCode, PMQLONG pReason);

#if defined(__cplusplus)
}
#endif

#endif /* MQSTUB_CMQC_H */
