/*
 * cmqstrc.h -- constant-to-name lookups for the mqprobe MQ client stub.
 *
 * Each MQxxx_STR(value) returns the symbolic name of a constant in that
 * family ("MQRC_UNKNOWN_OBJECT_NAME" for MQRC_STR(2085)) or "" when the value
 * has no name. IBM ships these as inline functions in its header; here they
 * are exported by libmqm_r.so (tables in src/strtab.c). The strings are
 * static and must not be freed.
 */
#ifndef MQSTUB_CMQSTRC_H
#define MQSTUB_CMQSTRC_H

#include "cmqc.h"

#if defined(__cplusplus)
extern "C" {
#endif

const char *MQBACF_STR(MQLONG v);
const char *MQCA_STR(MQLONG v);
const char *MQCACF_STR(MQLONG v);
const char *MQCACH_STR(MQLONG v);
const char *MQCAMO_STR(MQLONG v);
const char *MQCC_STR(MQLONG v);
const char *MQCHT_STR(MQLONG v);
const char *MQCMD_STR(MQLONG v);
const char *MQIA_STR(MQLONG v);
const char *MQIACF_STR(MQLONG v);
const char *MQIACH_STR(MQLONG v);
const char *MQIAMO_STR(MQLONG v);
const char *MQIAMO64_STR(MQLONG v);
const char *MQOT_STR(MQLONG v);
const char *MQPL_STR(MQLONG v);
const char *MQRC_STR(MQLONG v);
const char *MQRCCF_STR(MQLONG v);

#if defined(__cplusplus)
}
#endif

#endif /* MQSTUB_CMQSTRC_H */
