/*
 * cmqstrc.h -- constant-to-name lookups for the mqprobe MQ client stub.
 *
 * Each MQxxx_STR(value) returns the symbolic name of a constant in that
 * family ("MQRC_UNKNOWN_OBJECT_NAME" for MQRC_STR(2085)) or "" when the value
 * has no name. IBM ships these as functions in its header; here they are
 * exported by libmqm_r.so (tables in src/strtab.c). As in IBM's header they
 * return char *, but the strings are static: never write to or free them.
 */
#ifndef MQSTUB_CMQSTRC_H
#define MQSTUB_CMQSTRC_H

#include "cmqc.h"

#if defined(__cplusplus)
extern "C" {
#endif

char *MQBACF_STR(MQLONG v);
char *MQCA_STR(MQLONG v);
char *MQCACF_STR(MQLONG v);
char *MQCACH_STR(MQLONG v);
char *MQCAMO_STR(MQLONG v);
char *MQCC_STR(MQLONG v);
char *MQCHT_STR(MQLONG v);
char *MQCMD_STR(MQLONG v);
char *MQIA_STR(MQLONG v);
char *MQIACF_STR(MQLONG v);
char *MQIACH_STR(MQLONG v);
char *MQIAMO_STR(MQLONG v);
char *MQIAMO64_STR(MQLONG v);
char *MQOT_STR(MQLONG v);
char *MQPL_STR(MQLONG v);
char *MQRC_STR(MQLONG v);
char *MQRCCF_STR(MQLONG v);

#if defined(__cplusplus)
}
#endif

#endif /* MQSTUB_CMQSTRC_H */
