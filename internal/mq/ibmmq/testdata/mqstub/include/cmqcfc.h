/*
 * cmqcfc.h -- Programmable Command Format (PCF) declarations for the mqprobe
 * MQ client stub. Written for this project: the PCF header/parameter
 * structures in IBM's documented layout; numeric constants are in the
 * generated mqstub_pcf_values.h.
 */
#ifndef MQSTUB_CMQCFC_H
#define MQSTUB_CMQCFC_H

#include "cmqc.h"
#include "mqstub_pcf_values.h"

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct tagMQCFH {      /* PCF header */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Version;
  MQLONG Command;
  MQLONG MsgSeqNumber;
  MQLONG Control;
  MQLONG CompCode;
  MQLONG Reason;
  MQLONG ParameterCount;
} MQCFH;
typedef MQCFH MQPOINTER PMQCFH;

typedef struct tagMQCFIN {     /* integer parameter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG Value;
} MQCFIN;
typedef MQCFIN MQPOINTER PMQCFIN;

typedef struct tagMQCFIN64 {   /* 64-bit integer parameter */
  MQLONG  Type;
  MQLONG  StrucLength;
  MQLONG  Parameter;
  MQLONG  Reserved;
  MQINT64 Value;
} MQCFIN64;
typedef MQCFIN64 MQPOINTER PMQCFIN64;

typedef struct tagMQCFIL {     /* integer list parameter (Values follow) */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG Count;
} MQCFIL;
typedef MQCFIL MQPOINTER PMQCFIL;

typedef struct tagMQCFST {     /* string parameter (String follows) */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG CodedCharSetId;
  MQLONG StringLength;
} MQCFST;
typedef MQCFST MQPOINTER PMQCFST;

typedef struct tagMQCFSL {     /* string list parameter (Strings follow) */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG CodedCharSetId;
  MQLONG Count;
  MQLONG StringLength;
} MQCFSL;
typedef MQCFSL MQPOINTER PMQCFSL;

typedef struct tagMQCFBS {     /* byte string parameter (String follows) */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG StringLength;
} MQCFBS;
typedef MQCFBS MQPOINTER PMQCFBS;

typedef struct tagMQCFGR {     /* group parameter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG ParameterCount;
} MQCFGR;
typedef MQCFGR MQPOINTER PMQCFGR;

typedef struct tagMQCFIF {     /* integer filter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG Operator;
  MQLONG FilterValue;
} MQCFIF;
typedef MQCFIF MQPOINTER PMQCFIF;

typedef struct tagMQCFSF {     /* string filter (FilterValue follows) */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG Operator;
  MQLONG CodedCharSetId;
  MQLONG FilterValueLength;
} MQCFSF;
typedef MQCFSF MQPOINTER PMQCFSF;

typedef struct tagMQCFBF {     /* byte string filter (FilterValue follows) */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG Operator;
  MQLONG FilterValueLength;
} MQCFBF;
typedef MQCFBF MQPOINTER PMQCFBF;

typedef struct tagMQEPH {      /* embedded PCF header */
  MQCHAR4 StrucId;
  MQLONG  Version;
  MQLONG  StrucLength;
  MQLONG  Encoding;
  MQLONG  CodedCharSetId;
  MQCHAR8 Format;
  MQLONG  Flags;
  MQCFH   PCFHeader;
} MQEPH;
typedef MQEPH MQPOINTER PMQEPH;

#define MQEPH_STRUC_ID "EPH "

#if defined(__cplusplus)
}
#endif

#endif /* MQSTUB_CMQCFC_H */
