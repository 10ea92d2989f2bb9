/*
 * cmqcfc.h -- Programmable Command Format (PCF) declarations for the mqprobe
 * MQ client stub. Written for this project: the PCF header/parameter
 * structures in IBM's documented layout, each with its xxx_DEFAULT initial
 * values; numeric constants are in the generated mqstub_pcf_values.h.
 * Variable-length parameters end in a one-element array (Values, String,
 * Strings, FilterValue) naming where the data starts, as in IBM's header;
 * the fixed part's length is MQCFxx_STRUC_LENGTH_FIXED, not sizeof.
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
#define MQCFH_DEFAULT \
  MQCFT_COMMAND, MQCFH_STRUC_LENGTH, MQCFH_VERSION_1, MQCMD_NONE, 1, MQCFC_LAST, MQCC_OK, \
  MQRC_NONE, 0

typedef struct tagMQCFIN {     /* integer parameter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG Value;
} MQCFIN;
typedef MQCFIN MQPOINTER PMQCFIN;
#define MQCFIN_DEFAULT MQCFT_INTEGER, MQCFIN_STRUC_LENGTH, 0, 0

typedef struct tagMQCFIN64 {   /* 64-bit integer parameter */
  MQLONG  Type;
  MQLONG  StrucLength;
  MQLONG  Parameter;
  MQLONG  Reserved;
  MQINT64 Value;
} MQCFIN64;
typedef MQCFIN64 MQPOINTER PMQCFIN64;
#define MQCFIN64_DEFAULT MQCFT_INTEGER64, MQCFIN64_STRUC_LENGTH, 0, 0, 0

typedef struct tagMQCFIL {     /* integer list parameter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG Count;
  MQLONG Values[1];            /* Count values */
} MQCFIL;
typedef MQCFIL MQPOINTER PMQCFIL;
#define MQCFIL_DEFAULT MQCFT_INTEGER_LIST, MQCFIL_STRUC_LENGTH_FIXED, 0, 0, {0}

typedef struct tagMQCFIL64 {   /* 64-bit integer list parameter */
  MQLONG  Type;
  MQLONG  StrucLength;
  MQLONG  Parameter;
  MQLONG  Count;
  MQINT64 Values[1];           /* Count values */
} MQCFIL64;
typedef MQCFIL64 MQPOINTER PMQCFIL64;
#define MQCFIL64_DEFAULT MQCFT_INTEGER64_LIST, MQCFIL64_STRUC_LENGTH_FIXED, 0, 0, {0}

typedef struct tagMQCFST {     /* string parameter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG CodedCharSetId;
  MQLONG StringLength;
  MQCHAR String[1];            /* StringLength characters */
} MQCFST;
typedef MQCFST MQPOINTER PMQCFST;
#define MQCFST_DEFAULT MQCFT_STRING, MQCFST_STRUC_LENGTH_FIXED, 0, MQCCSI_DEFAULT, 0, {0}

typedef struct tagMQCFSL {     /* string list parameter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG CodedCharSetId;
  MQLONG Count;
  MQLONG StringLength;
  MQCHAR Strings[1];           /* Count strings of StringLength characters */
} MQCFSL;
typedef MQCFSL MQPOINTER PMQCFSL;
#define MQCFSL_DEFAULT MQCFT_STRING_LIST, MQCFSL_STRUC_LENGTH_FIXED, 0, MQCCSI_DEFAULT, 0, 0, {0}

typedef struct tagMQCFBS {     /* byte string parameter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG StringLength;
  MQBYTE String[1];            /* StringLength bytes */
} MQCFBS;
typedef MQCFBS MQPOINTER PMQCFBS;
#define MQCFBS_DEFAULT MQCFT_BYTE_STRING, MQCFBS_STRUC_LENGTH_FIXED, 0, 0, {0}

typedef struct tagMQCFGR {     /* group parameter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG ParameterCount;
} MQCFGR;
typedef MQCFGR MQPOINTER PMQCFGR;
#define MQCFGR_DEFAULT MQCFT_GROUP, MQCFGR_STRUC_LENGTH, 0, 0

typedef struct tagMQCFIF {     /* integer filter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG Operator;
  MQLONG FilterValue;
} MQCFIF;
typedef MQCFIF MQPOINTER PMQCFIF;
#define MQCFIF_DEFAULT MQCFT_INTEGER_FILTER, MQCFIF_STRUC_LENGTH, 0, 0, 0

typedef struct tagMQCFSF {     /* string filter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG Operator;
  MQLONG CodedCharSetId;
  MQLONG FilterValueLength;
  MQCHAR FilterValue[1];       /* FilterValueLength characters */
} MQCFSF;
typedef MQCFSF MQPOINTER PMQCFSF;
#define MQCFSF_DEFAULT MQCFT_STRING_FILTER, MQCFSF_STRUC_LENGTH_FIXED, 0, 0, MQCCSI_DEFAULT, 0, {0}

typedef struct tagMQCFBF {     /* byte string filter */
  MQLONG Type;
  MQLONG StrucLength;
  MQLONG Parameter;
  MQLONG Operator;
  MQLONG FilterValueLength;
  MQBYTE FilterValue[1];       /* FilterValueLength bytes */
} MQCFBF;
typedef MQCFBF MQPOINTER PMQCFBF;
#define MQCFBF_DEFAULT MQCFT_BYTE_STRING_FILTER, MQCFBF_STRUC_LENGTH_FIXED, 0, 0, 0, {0}

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

#define MQEPH_STRUC_ID       "EPH "
#define MQEPH_STRUC_ID_ARRAY 'E','P','H',' '
#define MQEPH_DEFAULT \
  {MQEPH_STRUC_ID_ARRAY}, MQEPH_VERSION_1, MQEPH_STRUC_LENGTH_FIXED, 0, MQCCSI_UNDEFINED, \
  {MQFMT_NONE_ARRAY}, MQEPH_NONE, \
  {MQCFT_COMMAND, MQCFH_STRUC_LENGTH, MQCFH_VERSION_3, MQCMD_NONE, 1, MQCFC_LAST, MQCC_OK, \
   MQRC_NONE, 0}

#if defined(__cplusplus)
}
#endif

#endif /* MQSTUB_CMQCFC_H */
