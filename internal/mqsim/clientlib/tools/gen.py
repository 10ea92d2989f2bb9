#!/usr/bin/env python3
"""Regenerate the numeric constant headers and the MQxxx_STR name tables.

The values are IBM MQ's published constants. The one machine-readable copy
available offline is the constant table that ships with the Go binding
(mq-golang/v5 ibmmq/cmqc_linux_amd64.go, Apache-2.0), so that is what this
script reads. Every numeric constant in that table lands in exactly one
generated header: the PCF families in mqstub_pcf_values.h (cmqcfc.h), the
exit and installable-service families in mqstub_exit_values.h (cmqxc.h), and
all others in mqstub_values.h (cmqc.h). From the documented values in the
tables below it also writes cmqc.h's character constants (mqstub_strings.h)
and cmqpsc.h, the publish/subscribe tag strings. It emits
only "#define NAME value" lines and value->name tables; every structure,
prototype and piece of logic in the stub is hand-written.

usage: tools/gen.py [path/to/cmqc_linux_amd64.go]
(default: the v5.7.1 module in `go env GOMODCACHE`)
"""
import collections, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Families declared by cmqcfc.h (PCF).
PCF_FAMILIES = """
MQCFBF_ MQCFBS_ MQCFC_ MQCFGR_ MQCFH_ MQCFIF_ MQCFIL_ MQCFIL64_ MQCFIN_
MQCFIN64_ MQCFSF_ MQCFSL_ MQCFST_ MQCFT_ MQCFOP_ MQCMD_ MQEPH_ MQCACF_ MQCACH_
MQCAMO_ MQIACF_ MQIACH_ MQIAMO_ MQIAMO64_ MQBACF_ MQRCCF_ MQGACF_
""".split()

# Families declared by cmqxc.h: channel exits, API exits, cluster-workload
# exits, data conversion and installable services.
EXIT_FAMILIES = """
MQACH_ MQAXC_ MQAXP_ MQCXP_ MQDCC_ MQDXP_ MQIEP_ MQIEPF_ MQNXP_ MQPBC_ MQPSXP_
MQSBC_ MQWCR_ MQWDR_ MQWDR1_ MQWDR2_ MQWQR_ MQWQR1_ MQWQR2_ MQWQR3_ MQWQR4_
MQWXP_ MQWXP1_ MQWXP2_ MQWXP3_ MQWXP4_ MQXACT_ MQXCC_ MQXC_ MQXDR_ MQXE_ MQXEPO_
MQXF_ MQXP_ MQXR_ MQXR2_ MQXT_ MQXWD_ MQZAC_ MQZAD_ MQZAET_ MQZAO_ MQZAS_ MQZAT_
MQZCI_ MQZED_ MQZFP_ MQZIC_ MQZID_ MQZIO_ MQZNS_ MQZSE_ MQZSL_ MQZTO_ MQZUS_
""".split()

# Constants IBM lets an application define before including the header
# (MQCCSI_APPL: the CCSID its MQCHARV strings and MQSMPO/MQIMPO default to).
OVERRIDABLE = {"MQCCSI_APPL"}

# Value->name lookups that cmqstrc.h declares (what mqistr.go calls).
STR_FAMILIES = "BACF CA CACF CACH CAMO CC CHT CMD IA IACF IACH IAMO IAMO64 OT PL RC RCCF".split()

# Where one value has several names, the name a reader expects.
PREFERRED = {"MQPL_UNIX", "MQPL_ZOS", "MQPL_NSK", "MQCA_BASE_Q_NAME"}


def _zeros(n):
    return "\0" * n


# Character constants of cmqc.h (IBM's documented values), emitted into
# mqstub_strings.h as NAME "text" and NAME_ARRAY 'c','c',... for
# initialising MQCHARn/MQBYTEn fields.
CHAR_CONSTANTS = [
    # Structure identifiers
    ("MQAIR_STRUC_ID", "AIR "), ("MQBMHO_STRUC_ID", "BMHO"), ("MQBNO_STRUC_ID", "BNO "),
    ("MQBO_STRUC_ID", "BO  "), ("MQCBC_STRUC_ID", "CBC "), ("MQCBD_STRUC_ID", "CBD "),
    ("MQCIH_STRUC_ID", "CIH "), ("MQCMHO_STRUC_ID", "CMHO"), ("MQCNO_STRUC_ID", "CNO "),
    ("MQCSP_STRUC_ID", "CSP "), ("MQCTLO_STRUC_ID", "CTLO"), ("MQDH_STRUC_ID", "DH  "),
    ("MQDLH_STRUC_ID", "DLH "), ("MQDMHO_STRUC_ID", "DMHO"), ("MQDMPO_STRUC_ID", "DMPO"),
    ("MQGMO_STRUC_ID", "GMO "), ("MQIIH_STRUC_ID", "IIH "), ("MQIMPO_STRUC_ID", "IMPO"),
    ("MQMD_STRUC_ID", "MD  "), ("MQMDE_STRUC_ID", "MDE "), ("MQMHBO_STRUC_ID", "MHBO"),
    ("MQOD_STRUC_ID", "OD  "), ("MQPD_STRUC_ID", "PD  "), ("MQPMO_STRUC_ID", "PMO "),
    ("MQRFH_STRUC_ID", "RFH "), ("MQRMH_STRUC_ID", "RMH "), ("MQSCO_STRUC_ID", "SCO "),
    ("MQSD_STRUC_ID", "SD  "), ("MQSMPO_STRUC_ID", "SMPO"), ("MQSRO_STRUC_ID", "SRO "),
    ("MQSTS_STRUC_ID", "STAT"), ("MQTM_STRUC_ID", "TM  "), ("MQTMC_STRUC_ID", "TMC "),
    ("MQWIH_STRUC_ID", "WIH "), ("MQXQH_STRUC_ID", "XQH "),
    # MQTMC2 carries its version as characters
    ("MQTMC_VERSION_1", "   1"), ("MQTMC_VERSION_2", "   2"), ("MQTMC_CURRENT_VERSION", "   2"),
    # Formats (MQMD.Format and the headers' Format fields)
    ("MQFMT_NONE", "        "), ("MQFMT_ADMIN", "MQADMIN "), ("MQFMT_AMQP", "MQAMQP  "),
    ("MQFMT_CHANNEL_COMPLETED", "MQCHCOM "), ("MQFMT_CICS", "MQCICS  "),
    ("MQFMT_COMMAND_1", "MQCMD1  "), ("MQFMT_COMMAND_2", "MQCMD2  "),
    ("MQFMT_DEAD_LETTER_HEADER", "MQDEAD  "), ("MQFMT_DIST_HEADER", "MQHDIST "),
    ("MQFMT_EMBEDDED_PCF", "MQHEPCF "), ("MQFMT_EVENT", "MQEVENT "), ("MQFMT_IMS", "MQIMS   "),
    ("MQFMT_IMS_VAR_STRING", "MQIMSVS "), ("MQFMT_MD_EXTENSION", "MQHMDE  "),
    ("MQFMT_PCF", "MQPCF   "), ("MQFMT_REF_MSG_HEADER", "MQHREF  "),
    ("MQFMT_RF_HEADER", "MQHRF   "), ("MQFMT_RF_HEADER_1", "MQHRF   "),
    ("MQFMT_RF_HEADER_2", "MQHRF2  "), ("MQFMT_STRING", "MQSTR   "),
    ("MQFMT_TRIGGER", "MQTRIG  "), ("MQFMT_WORK_INFO_HEADER", "MQHWIH  "),
    ("MQFMT_XMIT_Q_HEADER", "MQXMIT  "),
    # "None" values of identifiers and tokens
    ("MQMI_NONE", _zeros(24)), ("MQCI_NONE", _zeros(24)), ("MQGI_NONE", _zeros(24)),
    ("MQCI_NEW_SESSION", "AMQ!NEW_SESSION_CORRELID"), ("MQACT_NONE", _zeros(32)),
    ("MQCT_NONE", _zeros(128)), ("MQCONNID_NONE", _zeros(24)), ("MQAN_NONE", " " * 28),
    ("MQMTOK_NONE", _zeros(16)), ("MQOII_NONE", _zeros(24)), ("MQSID_NONE", _zeros(40)),
    ("MQXUA_NONE", _zeros(16)),
    # MQCIH and MQIIH fields
    ("MQCFAC_NONE", _zeros(8)), ("MQCFUNC_MQCONN", "CONN"), ("MQCFUNC_MQGET", "GET "),
    ("MQCFUNC_MQINQ", "INQ "), ("MQCFUNC_MQOPEN", "OPEN"), ("MQCFUNC_MQPUT", "PUT "),
    ("MQCFUNC_MQPUT1", "PUT1"), ("MQCFUNC_NONE", "    "), ("MQCSC_START", "S   "),
    ("MQCSC_STARTDATA", "SD  "), ("MQCSC_TERMINPUT", "TD  "), ("MQCSC_NONE", "    "),
    ("MQIAUT_NONE", "        "), ("MQITII_NONE", _zeros(16)),
    # MQRFH name/value names
    ("MQNVS_APPL_TYPE", "OPT_APP_GRP "), ("MQNVS_MSG_TYPE", "OPT_MSG_TYPE "),
]

# Single-character constants of cmqc.h.
CHAR_VALUES = [
    ("MQITS_IN_CONVERSATION", "C"), ("MQITS_NOT_IN_CONVERSATION", " "),
    ("MQITS_ARCHITECTED", "A"), ("MQICM_COMMIT_THEN_SEND", "0"),
    ("MQICM_SEND_THEN_COMMIT", "1"), ("MQISS_CHECK", "C"), ("MQISS_FULL", "F"),
    # Accounting-token and security-identifier types (first byte of the field)
    ("MQACTT_UNKNOWN", "\x00"), ("MQACTT_CICS_LUOW_ID", "\x01"),
    ("MQACTT_OS2_DEFAULT", "\x04"), ("MQACTT_DOS_DEFAULT", "\x05"),
    ("MQACTT_UNIX_NUMERIC_ID", "\x06"), ("MQACTT_OS400_ACCOUNT_TOKEN", "\x08"),
    ("MQACTT_WINDOWS_DEFAULT", "\x09"), ("MQACTT_NT_SECURITY_ID", "\x0b"),
    ("MQACTT_AZUREAD_SECURITY_ID", "\x0c"), ("MQACTT_MS_ACC_AUTH_SECURITY_ID", "\x0d"),
    ("MQACTT_USER", "\x19"), ("MQSIDT_NONE", "\x00"), ("MQSIDT_NT_SECURITY_ID", "\x01"),
    ("MQSIDT_WAS_SECURITY_ID", "\x02"),
]


# Publish/subscribe command tags (cmqpsc.h), as IBM documents them under
# "MQPS_* (Publish/subscribe)" and the MQRFH2 psc/pscr/mcd folder reference.
PUBSUB_RFH1 = [
    ("MQRFH name/value tags", [
        ("MQPS_COMMAND", "MQPSCommand"), ("MQPS_COMP_CODE", "MQPSCompCode"),
        ("MQPS_CORREL_ID", "MQPSCorrelId"), ("MQPS_DELETE_OPTIONS", "MQPSDelOpts"),
        ("MQPS_ERROR_ID", "MQPSErrorId"), ("MQPS_ERROR_POS", "MQPSErrorPos"),
        ("MQPS_INTEGER_DATA", "MQPSIntData"), ("MQPS_PARAMETER_ID", "MQPSParmId"),
        ("MQPS_PUBLICATION_OPTIONS", "MQPSPubOpts"), ("MQPS_PUBLISH_TIMESTAMP", "MQPSPubTime"),
        ("MQPS_Q_MGR_NAME", "MQPSQMgrName"), ("MQPS_Q_NAME", "MQPSQName"),
        ("MQPS_REASON", "MQPSReason"), ("MQPS_REASON_TEXT", "MQPSReasonText"),
        ("MQPS_REGISTRATION_OPTIONS", "MQPSRegOpts"), ("MQPS_SEQUENCE_NUMBER", "MQPSSeqNum"),
        ("MQPS_STREAM_NAME", "MQPSStreamName"), ("MQPS_STRING_DATA", "MQPSStringData"),
        ("MQPS_SUBSCRIPTION_IDENTITY", "MQPSSubIdentity"),
        ("MQPS_SUBSCRIPTION_NAME", "MQPSSubName"),
        ("MQPS_SUBSCRIPTION_USER_DATA", "MQPSSubUserData"), ("MQPS_TOPIC", "MQPSTopic"),
        ("MQPS_USER_ID", "MQPSUserId"),
    ]),
    ("Values of MQPS_COMMAND", [
        ("MQPS_DELETE_PUBLICATION", "DeletePub"), ("MQPS_DEREGISTER_PUBLISHER", "DeregPub"),
        ("MQPS_DEREGISTER_SUBSCRIBER", "DeregSub"), ("MQPS_PUBLISH", "Publish"),
        ("MQPS_REGISTER_PUBLISHER", "RegPub"), ("MQPS_REGISTER_SUBSCRIBER", "RegSub"),
        ("MQPS_REQUEST_UPDATE", "ReqUpdate"),
    ]),
    ("Values of MQPS_DELETE_OPTIONS, MQPS_PUBLICATION_OPTIONS, MQPS_REGISTRATION_OPTIONS", [
        ("MQPS_ADD_NAME", "AddName"), ("MQPS_ANONYMOUS", "Anon"),
        ("MQPS_CORREL_ID_AS_IDENTITY", "CorrelAsId"), ("MQPS_DEREGISTER_ALL", "DeregAll"),
        ("MQPS_DIRECT_REQUESTS", "DirectReq"), ("MQPS_DUPLICATES_OK", "DupsOK"),
        ("MQPS_FULL_RESPONSE", "FullResp"), ("MQPS_INCLUDE_STREAM_NAME", "InclStreamName"),
        ("MQPS_INFORM_IF_RETAINED", "InformIfRet"),
        ("MQPS_IS_RETAINED_PUBLICATION", "IsRetainedPub"), ("MQPS_JOIN_EXCLUSIVE", "JoinExcl"),
        ("MQPS_JOIN_SHARED", "JoinShared"), ("MQPS_LEAVE_ONLY", "LeaveOnly"),
        ("MQPS_LOCAL", "Local"), ("MQPS_LOCKED", "Locked"),
        ("MQPS_NEW_PUBLICATIONS_ONLY", "NewPubsOnly"), ("MQPS_NO_ALTERATION", "NoAlter"),
        ("MQPS_NO_REGISTRATION", "NoReg"), ("MQPS_NON_PERSISTENT", "NonPers"),
        ("MQPS_NONE", "None"), ("MQPS_OTHER_SUBSCRIBERS_ONLY", "OtherSubsOnly"),
        ("MQPS_PERSISTENT", "Pers"), ("MQPS_PERSISTENT_AS_PUBLISH", "PersAsPub"),
        ("MQPS_PERSISTENT_AS_Q", "PersAsQueue"),
        ("MQPS_PUBLISH_ON_REQUEST_ONLY", "PubOnReqOnly"),
        ("MQPS_RETAIN_PUBLICATION", "RetainPub"), ("MQPS_VARIABLE_USER_ID", "VariableUserId"),
    ]),
]

# (version guard, title, element names, element values) per MQRFH2 folder.
PUBSUB_RFH2 = [
    ("MQRFH2_NAME_VALUE_VERSION", "MQRFH2 top-level folders", [
        ("MQRFH2_PUBSUB_CMD_FOLDER", "psc"), ("MQRFH2_PUBSUB_RESP_FOLDER", "pscr"),
        ("MQRFH2_MSG_CONTENT_FOLDER", "mcd"), ("MQRFH2_USER_FOLDER", "usr"),
    ], []),
    ("MQMCD_FOLDER_VERSION", "Message content descriptor (mcd) folder", [
        ("MQMCD_MSG_DOMAIN", "Msd"), ("MQMCD_MSG_SET", "Set"),
        ("MQMCD_MSG_TYPE", "Type"), ("MQMCD_MSG_FORMAT", "Fmt"),
    ], [
        ("MQMCD_DOMAIN_NONE", "none"), ("MQMCD_DOMAIN_NEON", "neon"),
        ("MQMCD_DOMAIN_MRM", "mrm"), ("MQMCD_DOMAIN_JMS_NONE", "jms_none"),
        ("MQMCD_DOMAIN_JMS_TEXT", "jms_text"), ("MQMCD_DOMAIN_JMS_OBJECT", "jms_object"),
        ("MQMCD_DOMAIN_JMS_MAP", "jms_map"), ("MQMCD_DOMAIN_JMS_STREAM", "jms_stream"),
        ("MQMCD_DOMAIN_JMS_BYTES", "jms_bytes"),
    ]),
    ("MQPSC_FOLDER_VERSION", "Publish/subscribe command (psc) folder", [
        ("MQPSC_COMMAND", "Command"), ("MQPSC_REGISTRATION_OPTION", "RegOpt"),
        ("MQPSC_PUBLICATION_OPTION", "PubOpt"), ("MQPSC_DELETE_OPTION", "DelOpt"),
        ("MQPSC_TOPIC", "Topic"), ("MQPSC_SUBSCRIPTION_POINT", "SubPoint"),
        ("MQPSC_FILTER", "Filter"), ("MQPSC_Q_MGR_NAME", "QMgrName"),
        ("MQPSC_Q_NAME", "QName"), ("MQPSC_PUBLISH_TIMESTAMP", "PubTime"),
        ("MQPSC_SEQUENCE_NUMBER", "SeqNum"), ("MQPSC_SUBSCRIPTION_NAME", "SubName"),
        ("MQPSC_SUBSCRIPTION_IDENTITY", "SubIdentity"),
        ("MQPSC_SUBSCRIPTION_USER_DATA", "SubUserData"), ("MQPSC_CORREL_ID", "CorrelId"),
    ], [
        ("MQPSC_DELETE_PUBLICATION", "DeletePub"), ("MQPSC_DEREGISTER_SUBSCRIBER", "DeregSub"),
        ("MQPSC_PUBLISH", "Publish"), ("MQPSC_REGISTER_SUBSCRIBER", "RegSub"),
        ("MQPSC_REQUEST_UPDATE", "ReqUpdate"),
        ("MQPSC_ADD_NAME", "AddName"), ("MQPSC_CORREL_ID_AS_IDENTITY", "CorrelAsId"),
        ("MQPSC_DEREGISTER_ALL", "DeregAll"), ("MQPSC_DUPLICATES_OK", "DupsOK"),
        ("MQPSC_FULL_RESPONSE", "FullResp"), ("MQPSC_INFORM_IF_RETAINED", "InformIfRet"),
        ("MQPSC_IS_RETAINED_PUB", "IsRetainedPub"), ("MQPSC_JOIN_SHARED", "JoinShared"),
        ("MQPSC_JOIN_EXCLUSIVE", "JoinExcl"), ("MQPSC_LEAVE_ONLY", "LeaveOnly"),
        ("MQPSC_LOCAL", "Local"), ("MQPSC_LOCKED", "Locked"),
        ("MQPSC_NEW_PUBS_ONLY", "NewPubsOnly"), ("MQPSC_NO_ALTERATION", "NoAlter"),
        ("MQPSC_NON_PERSISTENT", "NonPers"), ("MQPSC_OTHER_SUBS_ONLY", "OtherSubsOnly"),
        ("MQPSC_PERSISTENT", "Pers"), ("MQPSC_PERSISTENT_AS_PUBLISH", "PersAsPub"),
        ("MQPSC_PERSISTENT_AS_Q", "PersAsQueue"), ("MQPSC_NONE", "None"),
        ("MQPSC_PUB_ON_REQUEST_ONLY", "PubOnReqOnly"), ("MQPSC_RETAIN_PUB", "RetainPub"),
        ("MQPSC_VARIABLE_USER_ID", "VariableUserId"),
    ]),
    ("MQPSCR_FOLDER_VERSION", "Publish/subscribe response (pscr) folder", [
        ("MQPSCR_COMPLETION", "Completion"), ("MQPSCR_RESPONSE", "Response"),
        ("MQPSCR_REASON", "Reason"),
    ], [
        ("MQPSCR_OK", "ok"), ("MQPSCR_WARNING", "warning"), ("MQPSCR_ERROR", "error"),
    ]),
]


def family(name):
    m = re.match(r"^(MQ[A-Z0-9]*_)", name)
    return m.group(1) if m else None


def load(path):
    consts = collections.OrderedDict()
    for line in open(path):
        m = re.match(r"\s+(MQ\w+)\s+(int32|rune)\s+=\s+(.+?)\s*$", line)
        if m:
            consts[m.group(1)] = (m.group(2), m.group(3))
    return consts


def emit_header(consts, selected, guard, title, out):
    """Write "#define NAME value" for every constant whose family selected() accepts."""
    lines = [
        "/* %s -- GENERATED by tools/gen.py, do not edit by hand. */" % title,
        "#ifndef %s" % guard, "#define %s" % guard, "",
    ]
    for name, (typ, val) in consts.items():
        if not selected(family(name)):
            continue
        if typ == "int32":
            v = val if not val.startswith("-") else "(%s)" % val
        else:
            v = val  # rune literal, same spelling in C
        define = "#define %-40s %s" % (name, v)
        if name in OVERRIDABLE:
            define = "#ifndef %s\n%s\n#endif" % (name, define)
        lines.append(define)
    lines += ["", "#endif", ""]
    open(out, "w").write("\n".join(lines))


def c_char(c):
    """The C character-literal spelling of one character."""
    return {"\0": "'\\0'", "'": "'\\''", "\\": "'\\\\'"}.get(c) or (
        "'%s'" % c if " " <= c <= "~" else "'\\x%02x'" % ord(c))


def c_chars(text):
    """The C character-list spelling of text: 'a','b',..."""
    return ",".join(c_char(c) for c in text)


def c_string(text):
    """The C string-literal spelling of text."""
    return '"%s"' % "".join("\\0" if c == "\0" else c for c in text)


def emit_strings(out):
    """Write mqstub_strings.h: cmqc.h's character constants."""
    lines = [
        "/* Character constants of cmqc.h -- GENERATED by tools/gen.py, do not edit by hand.",
        " * NAME is a string literal; NAME_ARRAY the same characters as an",
        " * initialiser list for a fixed-length MQCHARn/MQBYTEn field. */",
        "#ifndef MQSTUB_STRINGS_H", "#define MQSTUB_STRINGS_H", "",
    ]
    for name, text in CHAR_CONSTANTS:
        lines.append("#define %-30s %s" % (name, c_string(text)))
        lines.append("#define %-30s %s" % (name + "_ARRAY", c_chars(text)))
    lines.append("")
    for name, char in CHAR_VALUES:
        lines.append("#define %-30s %s" % (name, c_char(char)))
    lines += ["", "#endif", ""]
    open(out, "w").write("\n".join(lines))


def emit_pubsub(out):
    """Write cmqpsc.h: each tag in every spelling IBM's header offers."""
    lines = [
        "/*",
        " * cmqpsc.h -- publish/subscribe command tags for the mqprobe MQ client stub.",
        " * GENERATED by tools/gen.py from IBM's documented tag values; do not edit.",
        " *",
        " * MQRFH (version 1) name/value pairs: NAME is the string, NAME_B the",
        " * blank-enclosed string and NAME_A the blank-enclosed character list.",
        " * MQRFH2 folders and their elements: NAME is the string, NAME_A its",
        " * characters; element names also come as XML tags NAME_B \"<x>\" and",
        " * NAME_E \"</x>\", with character lists NAME_BA and NAME_EA.",
        " */",
        "#ifndef MQSTUB_CMQPSC_H", "#define MQSTUB_CMQPSC_H",
    ]

    def define(name, value):
        lines.append("#define %-34s %s" % (name, value))

    for title, table in PUBSUB_RFH1:
        lines += ["", "/* %s */" % title]
        for name, text in table:
            define(name, '"%s"' % text)
            define(name + "_B", '" %s "' % text)
            define(name + "_A", "' '," + c_chars(text) + ",' '")
    for guard, title, elements, values in PUBSUB_RFH2:
        lines += ["", "/* %s */" % title, "#if !defined(%s)" % guard, "#define %s 1" % guard]
        for name, text in elements:
            define(name, '"%s"' % text)
            define(name + "_A", c_chars(text))
            define(name + "_B", '"<%s>"' % text)
            define(name + "_E", '"</%s>"' % text)
            define(name + "_BA", c_chars("<%s>" % text))
            define(name + "_EA", c_chars("</%s>" % text))
        for name, text in values:
            define(name, '"%s"' % text)
            define(name + "_A", c_chars(text))
        lines.append("#endif")
    lines += ["", "#endif /* MQSTUB_CMQPSC_H */", ""]
    open(out, "w").write("\n".join(lines))


def emit_strtab(consts, out):
    lines = [
        "/* Value -> name tables behind cmqstrc.h -- GENERATED by tools/gen.py. */",
        '#include "internal.h"', "",
    ]
    for fam in STR_FAMILIES:
        pfx = "MQ%s_" % fam
        byval = collections.OrderedDict()
        for name, (typ, val) in consts.items():
            if typ != "int32" or not name.startswith(pfx):
                continue
            if re.search(r"_(FIRST|LAST|LAST_USED)$", name):
                continue  # range markers, never a value's own name
            v = int(val)
            cur = byval.get(v)
            if cur is None or name in PREFERRED or (cur not in PREFERRED and name < cur):
                byval[v] = name
        items = sorted(byval.items())
        lines.append("static const mqs_strent tab_%s[] = {" % fam)
        for v, name in items:
            lines.append('    {%d, "%s"},' % (v, name))
        lines.append("};")
        # IBM's lookups return char *; the names must still never be written.
        lines.append("MQS_EXPORT char *%s_STR(MQLONG v) { return (char *)mqs_strlookup(tab_%s, sizeof tab_%s / sizeof tab_%s[0], v); }"
                     % ("MQ" + fam, fam, fam, fam))
        lines.append("")
    open(out, "w").write("\n".join(lines))


def main():
    if len(sys.argv) > 1:
        src = sys.argv[1]
    else:
        cache = subprocess.check_output(["go", "env", "GOMODCACHE"], text=True).strip()
        src = os.path.join(cache, "github.com/ibm-messaging/mq-golang/v5@v5.7.1/ibmmq/cmqc_linux_amd64.go")
    consts = load(src)
    pcf, exits = set(PCF_FAMILIES), set(EXIT_FAMILIES)
    emit_header(consts, lambda f: f not in pcf and f not in exits, "MQSTUB_VALUES_H",
                "Numeric MQI constants", os.path.join(ROOT, "include", "mqstub_values.h"))
    emit_header(consts, lambda f: f in pcf, "MQSTUB_PCF_VALUES_H", "Numeric PCF constants",
                os.path.join(ROOT, "include", "mqstub_pcf_values.h"))
    emit_header(consts, lambda f: f in exits, "MQSTUB_EXIT_VALUES_H",
                "Numeric exit and installable-service constants",
                os.path.join(ROOT, "include", "mqstub_exit_values.h"))
    emit_strings(os.path.join(ROOT, "include", "mqstub_strings.h"))
    emit_pubsub(os.path.join(ROOT, "include", "cmqpsc.h"))
    emit_strtab(consts, os.path.join(ROOT, "src", "strtab.c"))


if __name__ == "__main__":
    main()
