/*
 * cmqxc.h -- channel definition (MQCD) for the mqprobe MQ client stub.
 *
 * Written for this project. Field order and the 64-bit layout follow IBM's
 * documented MQCD up to version 12 (sizeof == MQCD_LENGTH_12, checked in
 * src/layout.c). Clients pass an MQCD through MQCNO.ClientConnPtr.
 */
#ifndef MQSTUB_CMQXC_H
#define MQSTUB_CMQXC_H

#include "cmqc.h"

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

#if defined(__cplusplus)
}
#endif

#endif /* MQSTUB_CMQXC_H */
