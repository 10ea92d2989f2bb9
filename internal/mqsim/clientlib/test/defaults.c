/*
 * defaults.c -- checks that every xxx_DEFAULT in the stub's headers holds
 * IBM's documented initial values: the structure identifier and version, the
 * length where the structure carries one, and each field IBM gives a value
 * other than zero, blanks or nulls (those are checked too, in bulk, for the
 * structures applications use most). src/layout.c already proves that each
 * macro initialises its whole structure. Needs no queue manager; reports
 * every failed check and exits 1 if there was one.
 */
#include <stdio.h>
#include <string.h>

#include "cmqc.h"
#include "cmqxc.h"
#include "cmqcfc.h"
#include "cmqpsc.h"

static int failures;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "defaults.c:%d: %s\n", __LINE__, #cond);                   \
      failures++;                                                                \
    }                                                                            \
  } while (0)

/* A fixed-length field equals the characters of a constant (no NUL). */
#define FIELD_IS(field, text) CHECK(memcmp((field), (text), sizeof(field)) == 0)

static int all_bytes(const void *p, size_t n, unsigned char b) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++)
    if (c[i] != b) return 0;
  return 1;
}
#define ZEROS(field)  CHECK(all_bytes(&(field), sizeof(field), 0))
#define BLANKS(field) CHECK(all_bytes(&(field), sizeof(field), ' '))

static int charv_is_default(MQCHARV v) {
  return v.VSPtr == NULL && v.VSOffset == 0 && v.VSBufSize == 0 && v.VSLength == 0 &&
         v.VSCCSID == MQCCSI_APPL;
}

static void message_descriptors(void) {
  MQMD md = {MQMD_DEFAULT};
  FIELD_IS(md.StrucId, MQMD_STRUC_ID);
  CHECK(md.Version == MQMD_VERSION_1);
  CHECK(md.Report == MQRO_NONE);
  CHECK(md.MsgType == MQMT_DATAGRAM);
  CHECK(md.Expiry == MQEI_UNLIMITED);
  CHECK(md.Feedback == MQFB_NONE);
  CHECK(md.Encoding == MQENC_NATIVE && MQENC_NATIVE == 546);
  CHECK(md.CodedCharSetId == MQCCSI_Q_MGR);
  FIELD_IS(md.Format, MQFMT_NONE);
  CHECK(md.Priority == MQPRI_PRIORITY_AS_Q_DEF);
  CHECK(md.Persistence == MQPER_PERSISTENCE_AS_Q_DEF);
  ZEROS(md.MsgId);
  ZEROS(md.CorrelId);
  CHECK(md.BackoutCount == 0);
  ZEROS(md.ReplyToQ);
  ZEROS(md.UserIdentifier);
  ZEROS(md.AccountingToken);
  CHECK(md.PutApplType == MQAT_NO_CONTEXT);
  ZEROS(md.PutDate);
  ZEROS(md.GroupId);
  CHECK(md.MsgSeqNumber == 1);
  CHECK(md.Offset == 0);
  CHECK(md.MsgFlags == MQMF_NONE);
  CHECK(md.OriginalLength == MQOL_UNDEFINED);

  MQMD2 md2 = {MQMD2_DEFAULT};
  CHECK(md2.Version == MQMD_VERSION_2);
  md2.Version = MQMD_VERSION_1;
  CHECK(memcmp(&md2, &md, sizeof md) == 0);

  MQMD1 md1 = {MQMD1_DEFAULT};
  CHECK(memcmp(&md1, &md, sizeof md1) == 0);

  MQMDE mde = {MQMDE_DEFAULT};
  FIELD_IS(mde.StrucId, MQMDE_STRUC_ID);
  CHECK(mde.Version == MQMDE_VERSION_2 && mde.StrucLength == MQMDE_LENGTH_2);
  CHECK(mde.Encoding == MQENC_NATIVE && mde.CodedCharSetId == MQCCSI_UNDEFINED);
  FIELD_IS(mde.Format, MQFMT_NONE);
  CHECK(mde.MsgSeqNumber == 1 && mde.OriginalLength == MQOL_UNDEFINED);
}

static void object_and_options(void) {
  MQOD od = {MQOD_DEFAULT};
  FIELD_IS(od.StrucId, MQOD_STRUC_ID);
  CHECK(od.Version == MQOD_VERSION_1);
  CHECK(od.ObjectType == MQOT_Q);
  ZEROS(od.ObjectName);
  ZEROS(od.ObjectQMgrName);
  CHECK(strcmp(od.DynamicQName, "AMQ.*") == 0);
  CHECK(od.ObjectRecPtr == NULL && od.ResponseRecPtr == NULL);
  ZEROS(od.AlternateSecurityId);
  CHECK(charv_is_default(od.ObjectString) && charv_is_default(od.SelectionString) &&
        charv_is_default(od.ResObjectString));
  CHECK(od.ResolvedType == MQOT_NONE);

  MQPMO pmo = {MQPMO_DEFAULT};
  FIELD_IS(pmo.StrucId, MQPMO_STRUC_ID);
  CHECK(pmo.Version == MQPMO_VERSION_1);
  CHECK(pmo.Options == MQPMO_NONE);
  CHECK(pmo.Timeout == -1);
  CHECK(pmo.Context == 0);
  CHECK(pmo.PutMsgRecFields == MQPMRF_NONE);
  CHECK(pmo.OriginalMsgHandle == MQHM_NONE && pmo.NewMsgHandle == MQHM_NONE);
  CHECK(pmo.Action == MQACTP_NEW);
  CHECK(pmo.PubLevel == 9);

  MQGMO gmo = {MQGMO_DEFAULT};
  FIELD_IS(gmo.StrucId, MQGMO_STRUC_ID);
  CHECK(gmo.Version == MQGMO_VERSION_1);
  CHECK(gmo.Options == MQGMO_NO_WAIT);
  CHECK(gmo.WaitInterval == 0);
  ZEROS(gmo.ResolvedQName);
  CHECK(gmo.MatchOptions == (MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID));
  CHECK(gmo.GroupStatus == MQGS_NOT_IN_GROUP && gmo.SegmentStatus == MQSS_NOT_A_SEGMENT);
  CHECK(gmo.Segmentation == MQSEG_INHIBITED && gmo.Reserved1 == ' ');
  ZEROS(gmo.MsgToken);
  CHECK(gmo.ReturnedLength == MQRL_UNDEFINED);
  CHECK(gmo.MsgHandle == MQHM_NONE);

  MQOR or = {MQOR_DEFAULT};
  ZEROS(or);
  MQRR rr = {MQRR_DEFAULT};
  CHECK(rr.CompCode == MQCC_OK && rr.Reason == MQRC_NONE);
}

static void connection(void) {
  MQCNO cno = {MQCNO_DEFAULT};
  FIELD_IS(cno.StrucId, MQCNO_STRUC_ID);
  CHECK(cno.Version == MQCNO_VERSION_1);
  CHECK(cno.Options == MQCNO_NONE);
  CHECK(cno.ClientConnPtr == NULL && cno.SSLConfigPtr == NULL && cno.SecurityParmsPtr == NULL);
  CHECK(cno.CCDTUrlPtr == NULL && cno.BalanceParmsPtr == NULL);
  ZEROS(cno.ConnTag);
  ZEROS(cno.ConnectionId);
  FIELD_IS(cno.ApplName, MQAN_NONE);

  MQCSP csp = {MQCSP_DEFAULT};
  FIELD_IS(csp.StrucId, MQCSP_STRUC_ID);
  CHECK(csp.Version == MQCSP_VERSION_1);
  CHECK(csp.AuthenticationType == MQCSP_AUTH_NONE);
  CHECK(csp.CSPUserIdPtr == NULL && csp.CSPUserIdLength == 0);
  CHECK(csp.CSPPasswordPtr == NULL && csp.CSPPasswordLength == 0);
  CHECK(csp.InitialKeyPtr == NULL && csp.TokenPtr == NULL);

  MQSCO sco = {MQSCO_DEFAULT};
  FIELD_IS(sco.StrucId, MQSCO_STRUC_ID);
  CHECK(sco.Version == MQSCO_VERSION_1);
  ZEROS(sco.KeyRepository);
  CHECK(sco.AuthInfoRecPtr == NULL);
  CHECK(sco.KeyResetCount == MQSCO_RESET_COUNT_DEFAULT && sco.FipsRequired == MQSSL_FIPS_NO);
  CHECK(sco.EncryptionPolicySuiteB[0] == MQ_SUITE_B_NONE);
  CHECK(sco.EncryptionPolicySuiteB[1] == MQ_SUITE_B_NOT_AVAILABLE &&
        sco.EncryptionPolicySuiteB[3] == MQ_SUITE_B_NOT_AVAILABLE);
  CHECK(sco.CertificateValPolicy == MQ_CERT_VAL_POLICY_DEFAULT);
  ZEROS(sco.CertificateLabel);
  CHECK(sco.KeyRepoPasswordPtr == NULL && sco.HTTPSKeyStorePtr == NULL);

  MQAIR air = {MQAIR_DEFAULT};
  FIELD_IS(air.StrucId, MQAIR_STRUC_ID);
  CHECK(air.Version == MQAIR_VERSION_1 && air.AuthInfoType == MQAIT_CRL_LDAP);

  MQBNO bno = {MQBNO_DEFAULT};
  FIELD_IS(bno.StrucId, MQBNO_STRUC_ID);
  CHECK(bno.Version == MQBNO_VERSION_1 && bno.ApplType == MQBNO_BALTYPE_SIMPLE);
  CHECK(bno.Timeout == MQBNO_TIMEOUT_AS_DEFAULT && bno.Options == MQBNO_OPTIONS_NONE);
}

/* What MQCD_DEFAULT and MQCD_CLIENT_CONN_DEFAULT share. */
static void channel_common(const MQCD *cd) {
  ZEROS(cd->ChannelName);
  CHECK(cd->Version == MQCD_VERSION_6);
  ZEROS(cd->QMgrName);
  ZEROS(cd->ConnectionName);
  CHECK(cd->BatchSize == 50 && cd->DiscInterval == 6000);
  CHECK(cd->ShortRetryCount == 10 && cd->ShortRetryInterval == 60);
  CHECK(cd->LongRetryCount == 999999999 && cd->LongRetryInterval == 1200);
  CHECK(cd->SeqNumberWrap == 999999999 && cd->MaxMsgLength == 4194304);
  CHECK(cd->PutAuthority == MQPA_DEFAULT && cd->DataConversion == MQCDC_NO_SENDER_CONVERSION);
  CHECK(cd->MCAType == MQMCAT_PROCESS);
  CHECK(cd->MsgRetryCount == 10 && cd->MsgRetryInterval == 1000);
  CHECK(cd->NonPersistentMsgSpeed == MQNPMS_FAST);
  CHECK(cd->StrucLength == MQCD_CURRENT_LENGTH);
  CHECK(cd->ExitNameLength == MQ_EXIT_NAME_LENGTH && cd->ExitDataLength == MQ_EXIT_DATA_LENGTH);
  CHECK(cd->MsgExitPtr == NULL && cd->ClusterPtr == NULL && cd->SSLPeerNamePtr == NULL);
  ZEROS(cd->SSLCipherSpec);
  CHECK(cd->SSLClientAuth == MQSCA_REQUIRED && cd->KeepAliveInterval == MQKAI_AUTO);
  CHECK(cd->HdrCompList[1] == MQCOMPRESS_NOT_AVAILABLE);
  CHECK(cd->MsgCompList[1] == MQCOMPRESS_NOT_AVAILABLE &&
        cd->MsgCompList[15] == MQCOMPRESS_NOT_AVAILABLE);
  CHECK(cd->CLWLChannelWeight == 50);
  CHECK(cd->ChannelMonitoring == MQMON_OFF && cd->ChannelStatistics == MQMON_OFF);
  CHECK(cd->SharingConversations == 10 && cd->PropertyControl == MQPROP_COMPATIBILITY);
  CHECK(cd->MaxInstances == 999999999 && cd->MaxInstancesPerClient == 999999999);
  CHECK(cd->ConnectionAffinity == MQCAFTY_PREFERRED);
  CHECK(cd->BatchDataLimit == 5000 && cd->UseDLQ == MQUSEDLQ_YES);
  CHECK(cd->DefReconnect == MQRCN_NO && cd->SPLProtection == MQSPL_PASSTHRU);
  ZEROS(cd->CertificateLabel);
}

static void channels(void) {
  MQCD client = {MQCD_CLIENT_CONN_DEFAULT};
  channel_common(&client);
  CHECK(client.ChannelType == MQCHT_CLNTCONN && client.TransportType == MQXPT_TCP);
  CHECK(client.HeartbeatInterval == 1);
  CHECK(client.HdrCompList[0] == MQCOMPRESS_NOT_AVAILABLE);
  CHECK(client.MsgCompList[0] == MQCOMPRESS_NOT_AVAILABLE);

  MQCD sender = {MQCD_DEFAULT};
  channel_common(&sender);
  CHECK(sender.ChannelType == MQCHT_SENDER && sender.TransportType == MQXPT_LU62);
  CHECK(sender.HeartbeatInterval == 300);
  CHECK(sender.HdrCompList[0] == MQCOMPRESS_NONE && sender.MsgCompList[0] == MQCOMPRESS_NONE);
}

static void handles_and_properties(void) {
  MQCMHO cmho = {MQCMHO_DEFAULT};
  FIELD_IS(cmho.StrucId, MQCMHO_STRUC_ID);
  CHECK(cmho.Version == MQCMHO_VERSION_1 && cmho.Options == MQCMHO_DEFAULT_VALIDATION);
  MQDMHO dmho = {MQDMHO_DEFAULT};
  FIELD_IS(dmho.StrucId, MQDMHO_STRUC_ID);
  CHECK(dmho.Version == MQDMHO_VERSION_1 && dmho.Options == MQDMHO_NONE);
  MQDMPO dmpo = {MQDMPO_DEFAULT};
  FIELD_IS(dmpo.StrucId, MQDMPO_STRUC_ID);
  CHECK(dmpo.Version == MQDMPO_VERSION_1 && dmpo.Options == MQDMPO_DEL_FIRST);
  MQMHBO mhbo = {MQMHBO_DEFAULT};
  FIELD_IS(mhbo.StrucId, MQMHBO_STRUC_ID);
  CHECK(mhbo.Version == MQMHBO_VERSION_1 && mhbo.Options == MQMHBO_PROPERTIES_IN_MQRFH2);
  MQBMHO bmho = {MQBMHO_DEFAULT};
  FIELD_IS(bmho.StrucId, MQBMHO_STRUC_ID);
  CHECK(bmho.Version == MQBMHO_VERSION_1 && bmho.Options == MQBMHO_DELETE_PROPERTIES);

  MQSMPO smpo = {MQSMPO_DEFAULT};
  FIELD_IS(smpo.StrucId, MQSMPO_STRUC_ID);
  CHECK(smpo.Version == MQSMPO_VERSION_1 && smpo.Options == MQSMPO_SET_FIRST);
  CHECK(smpo.ValueEncoding == MQENC_NATIVE && smpo.ValueCCSID == MQCCSI_APPL);

  MQIMPO impo = {MQIMPO_DEFAULT};
  FIELD_IS(impo.StrucId, MQIMPO_STRUC_ID);
  CHECK(impo.Version == MQIMPO_VERSION_1 && impo.Options == MQIMPO_INQ_FIRST);
  CHECK(impo.RequestedEncoding == MQENC_NATIVE && impo.RequestedCCSID == MQCCSI_APPL);
  CHECK(impo.ReturnedEncoding == MQENC_NATIVE && impo.ReturnedCCSID == 0);
  CHECK(charv_is_default(impo.ReturnedName));
  ZEROS(impo.TypeString);

  MQPD pd = {MQPD_DEFAULT};
  FIELD_IS(pd.StrucId, MQPD_STRUC_ID);
  CHECK(pd.Version == MQPD_VERSION_1 && pd.Options == MQPD_NONE);
  CHECK(pd.Support == MQPD_SUPPORT_OPTIONAL && pd.Context == MQPD_NO_CONTEXT);
  CHECK(pd.CopyOptions == MQCOPY_DEFAULT);

  MQCHARV all = {MQPROP_INQUIRE_ALL};
  CHECK(all.VSLength == 1 && memcmp(all.VSPtr, "%", 1) == 0 && all.VSCCSID == MQCCSI_APPL);
  MQCHARV usr = {MQPROP_INQUIRE_ALL_USR};
  CHECK(usr.VSLength == 5 && memcmp(usr.VSPtr, "usr.%", 5) == 0);
  MQCHARV v = {MQCHARV_DEFAULT};
  CHECK(charv_is_default(v));
}

static void async_and_pubsub(void) {
  MQCBD cbd = {MQCBD_DEFAULT};
  FIELD_IS(cbd.StrucId, MQCBD_STRUC_ID);
  CHECK(cbd.Version == MQCBD_VERSION_1 && cbd.CallbackType == MQCBT_MESSAGE_CONSUMER);
  CHECK(cbd.Options == MQCBDO_NONE && cbd.CallbackFunction == NULL);
  CHECK(cbd.MaxMsgLength == MQCBD_FULL_MSG_LENGTH);

  MQCTLO ctlo = {MQCTLO_DEFAULT};
  FIELD_IS(ctlo.StrucId, MQCTLO_STRUC_ID);
  CHECK(ctlo.Version == MQCTLO_VERSION_1 && ctlo.Options == MQCTLO_NONE);
  CHECK(ctlo.Reserved == -1 && ctlo.ConnectionArea == NULL);

  MQSD sd = {MQSD_DEFAULT};
  FIELD_IS(sd.StrucId, MQSD_STRUC_ID);
  CHECK(sd.Version == MQSD_VERSION_1 && sd.Options == MQSO_NON_DURABLE);
  CHECK(sd.SubExpiry == MQEI_UNLIMITED);
  CHECK(charv_is_default(sd.ObjectString) && charv_is_default(sd.SubName) &&
        charv_is_default(sd.SubUserData) && charv_is_default(sd.SelectionString) &&
        charv_is_default(sd.ResObjectString));
  ZEROS(sd.SubCorrelId);
  CHECK(sd.PubPriority == MQPRI_PRIORITY_AS_PUBLISHED);
  CHECK(sd.SubLevel == 1);

  MQSRO sro = {MQSRO_DEFAULT};
  FIELD_IS(sro.StrucId, MQSRO_STRUC_ID);
  CHECK(sro.Version == MQSRO_VERSION_1 && sro.Options == MQSRO_NONE && sro.NumPubs == 0);

  MQSTS sts = {MQSTS_DEFAULT};
  FIELD_IS(sts.StrucId, MQSTS_STRUC_ID);
  CHECK(sts.Version == MQSTS_VERSION_1 && sts.CompCode == MQCC_OK && sts.Reason == MQRC_NONE);
  CHECK(sts.ObjectType == MQOT_Q);
  CHECK(charv_is_default(sts.ObjectString) && charv_is_default(sts.SubName));

  MQBO bo = {MQBO_DEFAULT};
  FIELD_IS(bo.StrucId, MQBO_STRUC_ID);
  CHECK(bo.Version == MQBO_VERSION_1 && bo.Options == MQBO_NONE);
}

static void message_headers(void) {
  MQDLH dlh = {MQDLH_DEFAULT};
  FIELD_IS(dlh.StrucId, MQDLH_STRUC_ID);
  CHECK(dlh.Version == MQDLH_VERSION_1 && dlh.Reason == MQRC_NONE);
  CHECK(dlh.Encoding == 0 && dlh.CodedCharSetId == MQCCSI_UNDEFINED);
  FIELD_IS(dlh.Format, MQFMT_NONE);
  CHECK(dlh.PutApplType == MQAT_NO_CONTEXT);

  MQRFH rfh = {MQRFH_DEFAULT};
  FIELD_IS(rfh.StrucId, MQRFH_STRUC_ID);
  CHECK(rfh.Version == MQRFH_VERSION_1 && rfh.StrucLength == MQRFH_STRUC_LENGTH_FIXED);
  CHECK(rfh.Encoding == MQENC_NATIVE && rfh.CodedCharSetId == MQCCSI_UNDEFINED);
  FIELD_IS(rfh.Format, MQFMT_NONE);
  CHECK(rfh.Flags == MQRFH_NONE);

  MQRFH2 rfh2 = {MQRFH2_DEFAULT};
  FIELD_IS(rfh2.StrucId, MQRFH_STRUC_ID);
  CHECK(rfh2.Version == MQRFH_VERSION_2 && rfh2.StrucLength == MQRFH_STRUC_LENGTH_FIXED_2);
  CHECK(rfh2.Encoding == MQENC_NATIVE && rfh2.CodedCharSetId == MQCCSI_INHERIT);
  FIELD_IS(rfh2.Format, MQFMT_NONE);
  CHECK(rfh2.Flags == MQRFH_NONE && rfh2.NameValueCCSID == 1208);

  MQDH dh = {MQDH_DEFAULT};
  FIELD_IS(dh.StrucId, MQDH_STRUC_ID);
  CHECK(dh.Version == MQDH_VERSION_1 && dh.StrucLength == 0 && dh.Flags == MQDHF_NONE);
  FIELD_IS(dh.Format, MQFMT_NONE);

  MQXQH xqh = {MQXQH_DEFAULT};
  MQMD1 md1 = {MQMD1_DEFAULT};
  FIELD_IS(xqh.StrucId, MQXQH_STRUC_ID);
  CHECK(xqh.Version == MQXQH_VERSION_1);
  CHECK(memcmp(&xqh.MsgDesc, &md1, sizeof md1) == 0);

  MQRMH rmh = {MQRMH_DEFAULT};
  FIELD_IS(rmh.StrucId, MQRMH_STRUC_ID);
  CHECK(rmh.Version == MQRMH_VERSION_1 && rmh.Encoding == MQENC_NATIVE);
  CHECK(rmh.Flags == MQRMHF_NOT_LAST);
  BLANKS(rmh.ObjectType);
  ZEROS(rmh.ObjectInstanceId);

  MQWIH wih = {MQWIH_DEFAULT};
  FIELD_IS(wih.StrucId, MQWIH_STRUC_ID);
  CHECK(wih.Version == MQWIH_VERSION_1 && wih.StrucLength == MQWIH_LENGTH_1);
  CHECK(wih.Flags == MQWIH_NONE);
  BLANKS(wih.ServiceName);
  BLANKS(wih.ServiceStep);
  ZEROS(wih.MsgToken);
  BLANKS(wih.Reserved);

  MQCIH cih = {MQCIH_DEFAULT};
  FIELD_IS(cih.StrucId, MQCIH_STRUC_ID);
  CHECK(cih.Version == MQCIH_VERSION_2 && cih.StrucLength == MQCIH_LENGTH_2);
  CHECK(cih.UOWControl == MQCUOWC_ONLY && cih.GetWaitInterval == MQCGWI_DEFAULT);
  CHECK(cih.LinkType == MQCLT_PROGRAM && cih.OutputDataLength == MQCODL_AS_INPUT);
  CHECK(cih.ADSDescriptor == MQCADSD_NONE && cih.ConversationalTask == MQCCT_NO);
  CHECK(cih.TaskEndStatus == MQCTES_NOSYNC);
  ZEROS(cih.Facility);
  FIELD_IS(cih.Function, MQCFUNC_NONE);
  FIELD_IS(cih.StartCode, MQCSC_NONE);
  BLANKS(cih.AbendCode);
  BLANKS(cih.Reserved3);

  MQIIH iih = {MQIIH_DEFAULT};
  FIELD_IS(iih.StrucId, MQIIH_STRUC_ID);
  CHECK(iih.Version == MQIIH_VERSION_1 && iih.StrucLength == MQIIH_LENGTH_1);
  BLANKS(iih.LTermOverride);
  FIELD_IS(iih.Authenticator, MQIAUT_NONE);
  ZEROS(iih.TranInstanceId);
  CHECK(iih.TranState == MQITS_NOT_IN_CONVERSATION && iih.CommitMode == MQICM_COMMIT_THEN_SEND);
  CHECK(iih.SecurityScope == MQISS_CHECK && iih.Reserved == ' ');

  MQTM tm = {MQTM_DEFAULT};
  FIELD_IS(tm.StrucId, MQTM_STRUC_ID);
  CHECK(tm.Version == MQTM_VERSION_1 && tm.ApplType == 0);
  MQTMC2 tmc = {MQTMC2_DEFAULT};
  FIELD_IS(tmc.StrucId, MQTMC_STRUC_ID);
  FIELD_IS(tmc.Version, MQTMC_VERSION_2);
  ZEROS(tmc.QMgrName);
}

static void pcf(void) {
  MQCFH cfh = {MQCFH_DEFAULT};
  CHECK(cfh.Type == MQCFT_COMMAND && cfh.StrucLength == MQCFH_STRUC_LENGTH);
  CHECK(cfh.Version == MQCFH_VERSION_1 && cfh.Command == MQCMD_NONE);
  CHECK(cfh.MsgSeqNumber == 1 && cfh.Control == MQCFC_LAST);
  CHECK(cfh.CompCode == MQCC_OK && cfh.Reason == MQRC_NONE && cfh.ParameterCount == 0);

  MQCFIN cfin = {MQCFIN_DEFAULT};
  CHECK(cfin.Type == MQCFT_INTEGER && cfin.StrucLength == MQCFIN_STRUC_LENGTH);
  MQCFIN64 cfin64 = {MQCFIN64_DEFAULT};
  CHECK(cfin64.Type == MQCFT_INTEGER64 && cfin64.StrucLength == MQCFIN64_STRUC_LENGTH);
  MQCFIL cfil = {MQCFIL_DEFAULT};
  CHECK(cfil.Type == MQCFT_INTEGER_LIST && cfil.StrucLength == MQCFIL_STRUC_LENGTH_FIXED);
  MQCFIL64 cfil64 = {MQCFIL64_DEFAULT};
  CHECK(cfil64.Type == MQCFT_INTEGER64_LIST &&
        cfil64.StrucLength == MQCFIL64_STRUC_LENGTH_FIXED);
  MQCFST cfst = {MQCFST_DEFAULT};
  CHECK(cfst.Type == MQCFT_STRING && cfst.StrucLength == MQCFST_STRUC_LENGTH_FIXED);
  CHECK(cfst.CodedCharSetId == MQCCSI_DEFAULT);
  MQCFSL cfsl = {MQCFSL_DEFAULT};
  CHECK(cfsl.Type == MQCFT_STRING_LIST && cfsl.StrucLength == MQCFSL_STRUC_LENGTH_FIXED);
  MQCFBS cfbs = {MQCFBS_DEFAULT};
  CHECK(cfbs.Type == MQCFT_BYTE_STRING && cfbs.StrucLength == MQCFBS_STRUC_LENGTH_FIXED);
  MQCFGR cfgr = {MQCFGR_DEFAULT};
  CHECK(cfgr.Type == MQCFT_GROUP && cfgr.StrucLength == MQCFGR_STRUC_LENGTH);
  MQCFIF cfif = {MQCFIF_DEFAULT};
  CHECK(cfif.Type == MQCFT_INTEGER_FILTER && cfif.StrucLength == MQCFIF_STRUC_LENGTH);
  MQCFSF cfsf = {MQCFSF_DEFAULT};
  CHECK(cfsf.Type == MQCFT_STRING_FILTER && cfsf.StrucLength == MQCFSF_STRUC_LENGTH_FIXED);
  MQCFBF cfbf = {MQCFBF_DEFAULT};
  CHECK(cfbf.Type == MQCFT_BYTE_STRING_FILTER && cfbf.StrucLength == MQCFBF_STRUC_LENGTH_FIXED);

  MQEPH eph = {MQEPH_DEFAULT};
  FIELD_IS(eph.StrucId, MQEPH_STRUC_ID);
  CHECK(eph.Version == MQEPH_VERSION_1 && eph.StrucLength == MQEPH_STRUC_LENGTH_FIXED);
  FIELD_IS(eph.Format, MQFMT_NONE);
  CHECK(eph.Flags == MQEPH_NONE);
  CHECK(eph.PCFHeader.Type == MQCFT_COMMAND && eph.PCFHeader.Version == MQCFH_VERSION_3);
  CHECK(eph.PCFHeader.StrucLength == MQCFH_STRUC_LENGTH && eph.PCFHeader.Control == MQCFC_LAST);
}

static void character_constants(void) {
  /* The _ARRAY form spells the same characters as the string form. */
  const char fmt[] = {MQFMT_STRING_ARRAY};
  CHECK(sizeof fmt == MQ_FORMAT_LENGTH && memcmp(fmt, MQFMT_STRING, sizeof fmt) == 0);
  const MQBYTE msgid[] = {MQMI_NONE_ARRAY};
  CHECK(sizeof msgid == MQ_MSG_ID_LENGTH && all_bytes(msgid, sizeof msgid, 0));
  const char session[] = {MQCI_NEW_SESSION_ARRAY};
  CHECK(sizeof session == MQ_CORREL_ID_LENGTH &&
        memcmp(session, MQCI_NEW_SESSION, sizeof session) == 0);
  CHECK(sizeof MQCT_NONE - 1 == MQ_CONN_TAG_LENGTH);
  CHECK(sizeof MQACT_NONE - 1 == MQ_ACCOUNTING_TOKEN_LENGTH);

  /* cmqpsc.h: a tag in each of its spellings. */
  CHECK(strcmp(MQPS_REGISTER_SUBSCRIBER, "RegSub") == 0);
  CHECK(strcmp(MQPS_COMMAND_B, " MQPSCommand ") == 0);
  const char command[] = {MQPS_COMMAND_A};
  CHECK(sizeof command == strlen(MQPS_COMMAND_B) &&
        memcmp(command, MQPS_COMMAND_B, sizeof command) == 0);
  CHECK(strcmp(MQRFH2_PUBSUB_CMD_FOLDER_B, "<psc>") == 0);
  CHECK(strcmp(MQPSC_SUBSCRIPTION_POINT_E, "</SubPoint>") == 0);
  const char user[] = {MQRFH2_USER_FOLDER_BA};
  CHECK(sizeof user == 5 && memcmp(user, "<usr>", 5) == 0);
  CHECK(strcmp(MQPSCR_WARNING, "warning") == 0);
}

int main(void) {
  message_descriptors();
  object_and_options();
  connection();
  channels();
  handles_and_properties();
  async_and_pubsub();
  message_headers();
  pcf();
  character_constants();
  if (failures) {
    fprintf(stderr, "defaults: %d check(s) failed\n", failures);
    return 1;
  }
  printf("defaults: every xxx_DEFAULT holds IBM's initial values\n");
  return 0;
}
