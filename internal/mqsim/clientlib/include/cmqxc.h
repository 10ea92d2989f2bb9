/*
 * cmqxc.h -- channel definition (MQCD) for the mqprobe MQ client stub.
 *
 * Written for this project. Field order and the 64-bit layout follow IBM's
 * documented MQCD up to version 12 (sizeof == MQCD_LENGTH_12, checked in
 * src/layout.c). Clients pass an MQCD through MQCNO.ClientConnPtr, usually
 * starting from `MQCD cd = {MQCD_CLIENT_CONN_DEFAULT};`. The exit and
 * installable-service constants are declared (mqstub_exit_values.h); their
 * structures are not, since the stub runs no exits.
 */
#ifndef MQSTUB_CMQXC_H
#define MQSTUB_CMQXC_H

#include "cmqc.h"
#include "mqstub_exit_values.h"

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct tagMQCD {
  MQCHAR20  ChannelName;
  MQLONG    Version;
  MQLONG    ChannelType;
  MQLONG    TransportType;
  MQCHAR64  Desc;
  MQCHAR48  QMgrName;
  MQCHAR48  XmitQName;
  MQCHAR20  ShortConnectionName;
  MQCHAR20  MCAName;
  MQCHAR8   ModeName;
  MQCHAR64  TpName;
  MQLONG    BatchSize;
  MQLONG    DiscInterval;
  MQLONG    ShortRetryCount;
  MQLONG    ShortRetryInterval;
  MQLONG    LongRetryCount;
  MQLONG    LongRetryInterval;
  MQCHAR128 SecurityExit;
  MQCHAR128 MsgExit;
  MQCHAR128 SendExit;
  MQCHAR128 ReceiveExit;
  MQLONG    SeqNumberWrap;
  MQLONG    MaxMsgLength;
  MQLONG    PutAuthority;
  MQLONG    DataConversion;
  MQCHAR32  SecurityUserData;
  MQCHAR32  MsgUserData;
  MQCHAR32  SendUserData;
  MQCHAR32  ReceiveUserData;
  /* version 2 */
  MQCHAR12  UserIdentifier;
  MQCHAR12  Password;
  MQCHAR12  MCAUserIdentifier;
  MQLONG    MCAType;
  MQCHAR264 ConnectionName;      /* "host(port),host(port)" list */
  MQCHAR12  RemoteUserIdentifier;
  MQCHAR12  RemotePassword;
  /* version 3 */
  MQCHAR128 MsgRetryExit;
  MQCHAR32  MsgRetryUserData;
  MQLONG    MsgRetryCount;
  MQLONG    MsgRetryInterval;
  /* version 4 */
  MQLONG    HeartbeatInterval;
  MQLONG    BatchInterval;
  MQLONG    NonPersistentMsgSpeed;
  MQLONG    StrucLength;
  MQLONG    ExitNameLength;
  MQLONG    ExitDataLength;
  MQLONG    MsgExitsDefined;
  MQLONG    SendExitsDefined;
  MQLONG    ReceiveExitsDefined;
  MQPTR     MsgExitPtr;
  MQPTR     MsgUserDataPtr;
  MQPTR     SendExitPtr;
  MQPTR     SendUserDataPtr;
  MQPTR     ReceiveExitPtr;
  MQPTR     ReceiveUserDataPtr;
  /* version 5 */
  MQPTR     ClusterPtr;
  MQLONG    ClustersDefined;
  MQLONG    NetworkPriority;
  /* version 6 */
  MQLONG    LongMCAUserIdLength;
  MQLONG    LongRemoteUserIdLength;
  MQPTR     LongMCAUserIdPtr;
  MQPTR     LongRemoteUserIdPtr;
  MQBYTE40  MCASecurityId;
  MQBYTE40  RemoteSecurityId;
  /* version 7 */
  MQCHAR32  SSLCipherSpec;
  MQPTR     SSLPeerNamePtr;
  MQLONG    SSLPeerNameLength;
  MQLONG    SSLClientAuth;
  MQLONG    KeepAliveInterval;
  MQCHAR48  LocalAddress;
  MQLONG    BatchHeartbeat;
  /* version 8 */
  MQLONG    HdrCompList[2];
  MQLONG    MsgCompList[16];
  MQLONG    CLWLChannelRank;
  MQLONG    CLWLChannelPriority;
  MQLONG    CLWLChannelWeight;
  MQLONG    ChannelMonitoring;
  MQLONG    ChannelStatistics;
  /* version 9 */
  MQLONG    SharingConversations;
  MQLONG    PropertyControl;
  MQLONG    MaxInstances;
  MQLONG    MaxInstancesPerClient;
  MQLONG    ClientChannelWeight;
  MQLONG    ConnectionAffinity;
  /* version 10 */
  MQLONG    BatchDataLimit;
  MQLONG    UseDLQ;
  MQLONG    DefReconnect;
  /* version 11 */
  MQCHAR64  CertificateLabel;
  /* version 12 */
  MQLONG    SPLProtection;
} MQCD;
typedef MQCD MQPOINTER PMQCD;
typedef PMQCD MQPOINTER PPMQCD;

/* IBM's initial values: the two defaults differ only in channel type,
 * transport, heartbeat interval and the first compression entries. */
#define MQSTUB_MQCD_FIELDS(channelType, transportType, heartbeat, firstCompression) \
  {""}, MQCD_VERSION_6, channelType, transportType, {""}, {""}, {""}, {""}, {""}, {""}, {""}, \
  50, 6000, 10, 60, 999999999, 1200, {""}, {""}, {""}, {""}, 999999999, 4194304, \
  MQPA_DEFAULT, MQCDC_NO_SENDER_CONVERSION, {""}, {""}, {""}, {""}, \
  /* version 2 */ {""}, {""}, {""}, MQMCAT_PROCESS, {""}, {""}, {""}, \
  /* version 3 */ {""}, {""}, 10, 1000, \
  /* version 4 */ heartbeat, 0, MQNPMS_FAST, MQCD_CURRENT_LENGTH, MQ_EXIT_NAME_LENGTH, \
  MQ_EXIT_DATA_LENGTH, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, \
  /* version 5 */ NULL, 0, 0, \
  /* version 6 */ 0, 0, NULL, NULL, {MQSID_NONE_ARRAY}, {MQSID_NONE_ARRAY}, \
  /* version 7 */ {""}, NULL, 0, MQSCA_REQUIRED, MQKAI_AUTO, {""}, 0, \
  /* version 8 */ {firstCompression, MQCOMPRESS_NOT_AVAILABLE}, \
  {firstCompression, MQCOMPRESS_NOT_AVAILABLE, MQCOMPRESS_NOT_AVAILABLE, \
   MQCOMPRESS_NOT_AVAILABLE, MQCOMPRESS_NOT_AVAILABLE, MQCOMPRESS_NOT_AVAILABLE, \
   MQCOMPRESS_NOT_AVAILABLE, MQCOMPRESS_NOT_AVAILABLE, MQCOMPRESS_NOT_AVAILABLE, \
   MQCOMPRESS_NOT_AVAILABLE, MQCOMPRESS_NOT_AVAILABLE, MQCOMPRESS_NOT_AVAILABLE, \
   MQCOMPRESS_NOT_AVAILABLE, MQCOMPRESS_NOT_AVAILABLE, MQCOMPRESS_NOT_AVAILABLE, \
   MQCOMPRESS_NOT_AVAILABLE}, \
  0, 0, 50, MQMON_OFF, MQMON_OFF, \
  /* version 9 */ 10, MQPROP_COMPATIBILITY, 999999999, 999999999, 0, MQCAFTY_PREFERRED, \
  /* version 10 */ 5000, MQUSEDLQ_YES, MQRCN_NO, \
  /* version 11 */ {""}, \
  /* version 12 */ MQSPL_PASSTHRU

/* A sender channel over LU 6.2 (IBM's generic default). */
#define MQCD_DEFAULT MQSTUB_MQCD_FIELDS(MQCHT_SENDER, MQXPT_LU62, 300, MQCOMPRESS_NONE)
/* A client-connection channel over TCP: what MQCONNX clients start from. */
#define MQCD_CLIENT_CONN_DEFAULT \
  MQSTUB_MQCD_FIELDS(MQCHT_CLNTCONN, MQXPT_TCP, 1, MQCOMPRESS_NOT_AVAILABLE)

#if defined(__cplusplus)
}
#endif

#endif /* MQSTUB_CMQXC_H */
