/*
 * props.c -- message handles and message properties: MQCRTMH, MQDLTMH,
 * MQSETMP, MQINQMP, MQDLTMP.
 *
 * A handle holds an ordered list of typed properties. MQPUT copies the list
 * onto the message; MQGET with MQGMO_PROPERTIES_IN_HANDLE copies it back.
 * MQINQMP walks the list with a per-handle cursor so that the usual loop
 * (name "%", MQIMPO_INQ_NEXT until MQRC_PROPERTY_NOT_AVAILABLE) sees every
 * property once.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static mqs_hmsg *g_hmsgs;
static MQHMSG next_hmsg = 0x100000001LL;   /* > 32 bits: catches truncating callers */

mqs_hmsg *mqs_hmsg_find(MQHMSG id)
{
  for (mqs_hmsg *h = g_hmsgs; h; h = h->next)
    if (h->id == id)
      return h;
  return NULL;
}

static void hmsg_free(mqs_hmsg *h)
{
  for (mqs_hmsg **pp = &g_hmsgs; *pp; pp = &(*pp)->next)
    if (*pp == h) {
      *pp = h->next;
      break;
    }
  mqs_props_free(h->props);
  free(h);
}

/* Handles created on a connection end with it. */
void mqs_hmsg_drop_for_conn(MQHCONN hconn)
{
  mqs_hmsg *next;
  for (mqs_hmsg *h = g_hmsgs; h; h = next) {
    next = h->next;
    if (h->hconn == hconn)
      hmsg_free(h);
  }
}

void mqs_props_free(mqs_prop *p)
{
  while (p) {
    mqs_prop *next = p->next;
    free(p->name);
    free(p->value);
    free(p);
    p = next;
  }
}

static mqs_prop *prop_new(const char *name, MQLONG type, const void *value, MQLONG len)
{
  mqs_prop *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->name = strdup(name);
  p->value = malloc(len > 0 ? (size_t)len : 1);
  if (!p->name || !p->value) {
    mqs_props_free(p);
    return NULL;
  }
  if (len > 0)
    memcpy(p->value, value, (size_t)len);
  p->type = type;
  p->len = len;
  return p;
}

mqs_prop *mqs_props_copy(const mqs_prop *src)
{
  mqs_prop *head = NULL, **tail = &head;
  for (; src; src = src->next) {
    mqs_prop *p = prop_new(src->name, src->type, src->value, src->len);
    if (!p)
      break;
    *tail = p;
    tail = &p->next;
  }
  return head;
}

/* Handle calls may use MQHC_UNASSOCIATED_HCONN instead of a connection. */
static int enter(MQHCONN h, PMQLONG cc, PMQLONG rc)
{
  if (h == MQHC_UNASSOCIATED_HCONN)
    return 1;
  return mqs_conn_enter(h, cc, rc) != NULL;
}

/* Read a property name from an MQCHARV into a fresh string. */
static MQLONG charv_name(const MQCHARV *v, char **out)
{
  *out = NULL;
  if (!v)
    return MQRC_PROPERTY_NAME_ERROR;
  const char *p = v->VSPtr ? (const char *)v->VSPtr
                           : (v->VSOffset > 0 ? (const char *)v + v->VSOffset : NULL);
  MQLONG len = v->VSLength;
  if (len == MQVL_NULL_TERMINATED)
    len = p ? (MQLONG)strlen(p) : 0;
  if (len < 0 || len > 4095)
    return MQRC_PROPERTY_NAME_LENGTH_ERR;
  if (len == 0 || !p)
    return MQRC_PROPERTY_NAME_ERROR;
  char *s = malloc((size_t)len + 1);
  if (!s)
    return MQRC_STORAGE_NOT_AVAILABLE;
  memcpy(s, p, (size_t)len);
  s[len] = '\0';
  if (strlen(s) != (size_t)len) {
    free(s);
    return MQRC_PROPERTY_NAME_ERROR;
  }
  *out = s;
  return MQRC_NONE;
}

/* "%" alone matches every name; "abc.%" every name starting "abc.". */
static int name_matches(const char *pattern, const char *name)
{
  size_t n = strlen(pattern);
  if (n > 0 && pattern[n - 1] == '%')
    return strncmp(pattern, name, n - 1) == 0;
  return strcmp(pattern, name) == 0;
}

static MQLONG check_pd(const MQPD *pd)
{
  if (pd && (!mqs_strucid_ok(pd, MQPD_STRUC_ID) || pd->Version != MQPD_VERSION_1))
    return MQRC_PD_ERROR;
  return MQRC_NONE;
}

/* ---- MQCRTMH / MQDLTMH --------------------------------------------- */

MQS_EXPORT void MQCRTMH(MQHCONN Hconn, PMQVOID pCrtMsgHOpts, PMQHMSG pHmsg,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  if (enter(Hconn, pCompCode, pReason)) {
    const MQCMHO *o = pCrtMsgHOpts;
    mqs_hmsg *h = NULL;
    MQLONG rc = MQRC_NONE;
    if (!o || !mqs_strucid_ok(o, MQCMHO_STRUC_ID) || o->Version != MQCMHO_VERSION_1)
      rc = MQRC_CMHO_ERROR;
    else if (!pHmsg)
      rc = MQRC_HMSG_ERROR;
    else if (!(h = calloc(1, sizeof *h)))
      rc = MQRC_STORAGE_NOT_AVAILABLE;
    if (!rc) {
      h->id = next_hmsg++;
      h->hconn = Hconn;
      h->cursor = -1;
      h->next = g_hmsgs;
      g_hmsgs = h;
      *pHmsg = h->id;
    } else if (pHmsg) {
      *pHmsg = MQHM_UNUSABLE_HMSG;
    }
    mqs_set(pCompCode, pReason, rc ? MQCC_FAILED : MQCC_OK, rc);
  }
  mqs_unlock();
}

MQS_EXPORT void MQDLTMH(MQHCONN Hconn, PMQHMSG pHmsg, PMQVOID pDltMsgHOpts,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  if (enter(Hconn, pCompCode, pReason)) {
    const MQDMHO *o = pDltMsgHOpts;
    mqs_hmsg *h = pHmsg ? mqs_hmsg_find(*pHmsg) : NULL;
    MQLONG rc = MQRC_NONE;
    if (!o || !mqs_strucid_ok(o, MQDMHO_STRUC_ID) || o->Version != MQDMHO_VERSION_1)
      rc = MQRC_DMHO_ERROR;
    else if (!h)
      rc = MQRC_HMSG_ERROR;
    if (!rc) {
      hmsg_free(h);
      *pHmsg = MQHM_UNUSABLE_HMSG;
    }
    mqs_set(pCompCode, pReason, rc ? MQCC_FAILED : MQCC_OK, rc);
  }
  mqs_unlock();
}

/* ---- MQSETMP -------------------------------------------------------- */

static MQLONG value_length_ok(MQLONG type, MQLONG *len, const void *value)
{
  switch (type) {
  case MQTYPE_BOOLEAN: case MQTYPE_INT32: case MQTYPE_FLOAT32:
    return *len == 4 ? MQRC_NONE : MQRC_PROPERTY_VALUE_TOO_BIG;
  case MQTYPE_INT8:
    return *len == 1 ? MQRC_NONE : MQRC_PROPERTY_VALUE_TOO_BIG;
  case MQTYPE_INT16:
    return *len == 2 ? MQRC_NONE : MQRC_PROPERTY_VALUE_TOO_BIG;
  case MQTYPE_INT64: case MQTYPE_FLOAT64:
    return *len == 8 ? MQRC_NONE : MQRC_PROPERTY_VALUE_TOO_BIG;
  case MQTYPE_NULL:
    *len = 0;
    return MQRC_NONE;
  case MQTYPE_STRING:
    if (*len == MQVL_NULL_TERMINATED)
      *len = value ? (MQLONG)strlen(value) : 0;
    return *len >= 0 ? MQRC_NONE : MQRC_PROPERTY_VALUE_TOO_BIG;
  case MQTYPE_BYTE_STRING:
    return *len >= 0 ? MQRC_NONE : MQRC_PROPERTY_VALUE_TOO_BIG;
  default:
    return MQRC_PROPERTY_TYPE_ERROR;
  }
}

MQS_EXPORT void MQSETMP(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pSetPropOpts, PMQVOID pName,
                        PMQVOID pPropDesc, MQLONG Type, MQLONG ValueLength, PMQVOID pValue,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  if (!enter(Hconn, pCompCode, pReason)) {
    mqs_unlock();
    return;
  }
  const MQSMPO *o = pSetPropOpts;
  mqs_hmsg *h = mqs_hmsg_find(Hmsg);
  char *name = NULL;
  MQLONG len = ValueLength, rc = MQRC_NONE;
  if (!h)
    rc = MQRC_HMSG_ERROR;
  else if (!o || !mqs_strucid_ok(o, MQSMPO_STRUC_ID) || o->Version != MQSMPO_VERSION_1)
    rc = MQRC_SMPO_ERROR;
  else if ((rc = check_pd(pPropDesc)) != MQRC_NONE)
    ;
  else if ((rc = charv_name(pName, &name)) != MQRC_NONE)
    ;
  else if (strchr(name, '%'))
    rc = MQRC_PROPERTY_NAME_ERROR;             /* wildcards only when inquiring */
  else if ((rc = value_length_ok(Type, &len, pValue)) != MQRC_NONE)
    ;
  else if (len > 0 && !pValue)
    rc = MQRC_BUFFER_ERROR;

  mqs_prop *p = NULL;
  if (!rc && !(p = prop_new(name, Type, pValue, len)))
    rc = MQRC_STORAGE_NOT_AVAILABLE;
  if (!rc) {
    /* Setting an existing name replaces it in place. */
    mqs_prop **pp = &h->props;
    while (*pp && strcmp((*pp)->name, name) != 0)
      pp = &(*pp)->next;
    if (*pp) {
      p->next = (*pp)->next;
      (*pp)->next = NULL;
      mqs_props_free(*pp);
    }
    *pp = p;
  }
  free(name);
  mqs_set(pCompCode, pReason, rc ? MQCC_FAILED : MQCC_OK, rc);
  mqs_unlock();
}

/* ---- MQINQMP -------------------------------------------------------- */

MQS_EXPORT void MQINQMP(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pInqPropOpts, PMQVOID pName,
                        PMQVOID pPropDesc, PMQLONG pType, MQLONG ValueLength, PMQVOID pValue,
                        PMQLONG pDataLength, PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  if (!enter(Hconn, pCompCode, pReason)) {
    mqs_unlock();
    return;
  }
  MQIMPO *o = pInqPropOpts;
  mqs_hmsg *h = mqs_hmsg_find(Hmsg);
  char *pattern = NULL;
  MQLONG rc = MQRC_NONE;
  if (!h)
    rc = MQRC_HMSG_ERROR;
  else if (!o || !mqs_strucid_ok(o, MQIMPO_STRUC_ID) || o->Version != MQIMPO_VERSION_1)
    rc = MQRC_IMPO_ERROR;
  else if ((rc = check_pd(pPropDesc)) != MQRC_NONE)
    ;
  else if (!pType)
    rc = MQRC_PROPERTY_TYPE_ERROR;
  else if (!pDataLength)
    rc = MQRC_DATA_LENGTH_ERROR;
  else if (ValueLength < 0)
    rc = MQRC_BUFFER_LENGTH_ERROR;
  else
    rc = charv_name(pName, &pattern);
  if (rc) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, rc);
    mqs_unlock();
    return;
  }

  int start = 0;
  if (o->Options & MQIMPO_INQ_NEXT)
    start = h->cursor + 1;
  else if (o->Options & MQIMPO_INQ_PROP_UNDER_CURSOR)
    start = h->cursor >= 0 ? h->cursor : -1;
  mqs_prop *p = NULL;
  int idx = 0;
  if (start >= 0)
    for (p = h->props; p; p = p->next, idx++)
      if (idx >= start && name_matches(pattern, p->name))
        break;
  free(pattern);
  if (!p) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_PROPERTY_NOT_AVAILABLE);
    mqs_unlock();
    return;
  }

  *pType = p->type;
  *pDataLength = p->len;
  o->ReturnedEncoding = MQENC_NATIVE;
  o->ReturnedCCSID = MQS_QMGR_CCSID;
  MQCHARV *rn = &o->ReturnedName;
  MQLONG nlen = (MQLONG)strlen(p->name);
  char *dst = rn->VSPtr ? (char *)rn->VSPtr : (rn->VSOffset > 0 ? (char *)o + rn->VSOffset : NULL);
  if (dst && rn->VSBufSize < nlen) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_PROPERTY_NAME_TOO_BIG);
    mqs_unlock();
    return;
  }
  if (!(o->Options & MQIMPO_QUERY_LENGTH) && p->len > ValueLength) {
    mqs_set(pCompCode, pReason, MQCC_FAILED, MQRC_PROPERTY_VALUE_TOO_BIG);
    mqs_unlock();
    return;
  }
  if (dst) {
    memcpy(dst, p->name, (size_t)nlen);
    rn->VSLength = nlen;
    rn->VSCCSID = MQS_QMGR_CCSID;
  }
  if (!(o->Options & MQIMPO_QUERY_LENGTH) && p->len > 0)
    memcpy(pValue, p->value, (size_t)p->len);
  h->cursor = idx;
  mqs_set(pCompCode, pReason, MQCC_OK, MQRC_NONE);
  mqs_unlock();
}

/* ---- MQDLTMP -------------------------------------------------------- */

MQS_EXPORT void MQDLTMP(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pDltPropOpts, PMQVOID pName,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_lock();
  mqs_faults_poll();
  if (!enter(Hconn, pCompCode, pReason)) {
    mqs_unlock();
    return;
  }
  const MQDMPO *o = pDltPropOpts;
  mqs_hmsg *h = mqs_hmsg_find(Hmsg);
  char *name = NULL;
  MQLONG rc = MQRC_NONE;
  if (!h)
    rc = MQRC_HMSG_ERROR;
  else if (!o || !mqs_strucid_ok(o, MQDMPO_STRUC_ID) || o->Version != MQDMPO_VERSION_1)
    rc = MQRC_DMPO_ERROR;
  else if ((rc = charv_name(pName, &name)) == MQRC_NONE && strchr(name, '%'))
    rc = MQRC_PROPERTY_NAME_ERROR;
  if (rc) {
    free(name);
    mqs_set(pCompCode, pReason, MQCC_FAILED, rc);
    mqs_unlock();
    return;
  }
  int idx = 0;
  mqs_prop **pp = &h->props;
  while (*pp && strcmp((*pp)->name, name) != 0) {
    pp = &(*pp)->next;
    idx++;
  }
  free(name);
  if (!*pp) {
    /* Deleting a property that is not there only warns. */
    mqs_set(pCompCode, pReason, MQCC_WARNING, MQRC_PROPERTY_NOT_AVAILABLE);
  } else {
    mqs_prop *dead = *pp;
    *pp = dead->next;
    dead->next = NULL;
    mqs_props_free(dead);
    if (h->cursor >= idx)      /* keep the inquiry cursor on the same property */
      h->cursor--;
    mqs_set(pCompCode, pReason, MQCC_OK, MQRC_NONE);
  }
  mqs_unlock();
}
