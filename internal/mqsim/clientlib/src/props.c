/*
 * props.c -- message handles and message properties: MQCRTMH, MQDLTMH,
 * MQSETMP, MQINQMP, MQDLTMP. They live in the client, as in IBM's client:
 * MQPUT sends a handle's properties with the message, MQGET stores the
 * message's properties in the caller's handle.
 *
 * A handle holds an ordered list of typed properties. MQINQMP walks the
 * list with a per-handle cursor so that the usual loop (name "%",
 * MQIMPO_INQ_NEXT until MQRC_PROPERTY_NOT_AVAILABLE) sees every property
 * once. One mutex guards every handle; a call on a connection takes the
 * connection first, so the order is always connection, then handles.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define QMGR_CCSID 1208   /* names and values are UTF-8 */

typedef struct mqs_hmsg {       /* a message handle (MQCRTMH) */
  struct mqs_hmsg *next;
  MQHMSG           id;
  MQHCONN          hconn;       /* owner, or MQHC_UNASSOCIATED_HCONN */
  mqs_prop        *props;
  int              cursor;      /* index of the last property MQINQMP returned, -1 none */
  unsigned char   *wire;        /* props as the last MQPUT encoded them; NULL once they change */
  size_t           wire_len;
} mqs_hmsg;

static pthread_mutex_t g_hmsg_mu = PTHREAD_MUTEX_INITIALIZER;
static mqs_hmsg *g_hmsgs;
static MQHMSG next_hmsg = 0x100000001LL;   /* > 32 bits: catches truncating callers */

static mqs_hmsg *hmsg_find(MQHMSG id)
{
  for (mqs_hmsg *h = g_hmsgs; h; h = h->next)
    if (h->id == id)
      return h;
  return NULL;
}

/* The handle's properties changed: the next MQPUT encodes them again. */
static void hmsg_changed(mqs_hmsg *h)
{
  free(h->wire);
  h->wire = NULL;
  h->wire_len = 0;
}

static void hmsg_free(mqs_hmsg *h)
{
  for (mqs_hmsg **pp = &g_hmsgs; *pp; pp = &(*pp)->next)
    if (*pp == h) {
      *pp = h->next;
      break;
    }
  mqs_props_free(h->props);
  free(h->wire);
  free(h);
}

void mqs_hmsg_drop_for_conn(MQHCONN hconn)
{
  pthread_mutex_lock(&g_hmsg_mu);
  mqs_hmsg *next;
  for (mqs_hmsg *h = g_hmsgs; h; h = next) {
    next = h->next;
    if (h->hconn == hconn)
      hmsg_free(h);
  }
  pthread_mutex_unlock(&g_hmsg_mu);
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
  /* An empty name is a length error (2513), as IBM's MQINQMP and MQSETMP say. */
  if (len <= 0 || len > 4095)
    return MQRC_PROPERTY_NAME_LENGTH_ERR;
  if (!p)
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

/* ---- properties on the wire ----------------------------------------- */

/* Append a copy of p to *out, replacing a property of the same name. */
static int merge_prop(mqs_prop **out, const mqs_prop *p)
{
  for (mqs_prop **pp = out; *pp; pp = &(*pp)->next)
    if (strcmp((*pp)->name, p->name) == 0) {
      mqs_prop *dead = *pp;
      *pp = dead->next;
      dead->next = NULL;
      mqs_props_free(dead);
      break;
    }
  mqs_prop *copy = prop_new(p->name, p->type, p->value, p->len);
  if (!copy)
    return 0;
  mqs_prop **tail = out;
  while (*tail)
    tail = &(*tail)->next;
  *tail = copy;
  return 1;
}

/* Encode props, a list with unique names, as the wire's props. */
static void encode_props(mqs_buf *b, const mqs_prop *props)
{
  int32_t n = 0;
  for (const mqs_prop *p = props; p; p = p->next)
    n++;
  mqs_put_i32(b, n);
  for (const mqs_prop *p = props; p; p = p->next) {
    mqs_put_cstr(b, p->name);
    mqs_put_i32(b, p->type);
    mqs_put_i32(b, p->len);
    mqs_put_bytes(b, p->value, (size_t)p->len);
  }
}

MQLONG mqs_props_encode_for_put(mqs_buf *b, const MQPMO *pmo)
{
  mqs_prop *merged = NULL;
  MQLONG rc = MQRC_NONE;
  if (pmo->Version >= MQPMO_VERSION_3 && (pmo->OriginalMsgHandle == MQHM_NONE) != (pmo->NewMsgHandle == MQHM_NONE)) {
    /* One handle, the usual put: its properties go out as they are, with
     * no merged copy to make and free per put, and as the last put encoded
     * them while they are unchanged (a putter's handle rarely changes). */
    pthread_mutex_lock(&g_hmsg_mu);
    mqs_hmsg *h = hmsg_find(pmo->OriginalMsgHandle != MQHM_NONE ? pmo->OriginalMsgHandle : pmo->NewMsgHandle);
    if (h && h->wire)
      mqs_put_bytes(b, h->wire, h->wire_len);
    else if (h) {
      size_t start = b->len;
      encode_props(b, h->props);
      if (!b->oom && (h->wire = malloc(b->len - start)) != NULL) {
        memcpy(h->wire, b->p + start, b->len - start);
        h->wire_len = b->len - start;
      }
    }
    pthread_mutex_unlock(&g_hmsg_mu);
    return h ? MQRC_NONE : MQRC_HMSG_ERROR;
  }
  if (pmo->Version >= MQPMO_VERSION_3) {
    MQHMSG hs[2] = { pmo->OriginalMsgHandle, pmo->NewMsgHandle };
    pthread_mutex_lock(&g_hmsg_mu);
    for (int i = 0; !rc && i < 2; i++) {
      if (hs[i] == MQHM_NONE)
        continue;
      mqs_hmsg *h = hmsg_find(hs[i]);
      if (!h)
        rc = MQRC_HMSG_ERROR;
      for (const mqs_prop *p = h ? h->props : NULL; !rc && p; p = p->next)
        if (!merge_prop(&merged, p))
          rc = MQRC_STORAGE_NOT_AVAILABLE;
    }
    pthread_mutex_unlock(&g_hmsg_mu);
  }
  if (!rc)
    encode_props(b, merged);
  mqs_props_free(merged);
  return rc;
}

int mqs_hmsg_exists(MQHMSG id)
{
  pthread_mutex_lock(&g_hmsg_mu);
  int found = hmsg_find(id) != NULL;
  pthread_mutex_unlock(&g_hmsg_mu);
  return found;
}

int mqs_props_decode_into(mqs_rd *r, MQHMSG id)
{
  int32_t count = mqs_get_i32(r);
  if (r->bad || count < 0)
    return -1;
  mqs_prop *list = NULL, **tail = &list;
  for (int32_t i = 0; i < count; i++) {
    size_t nlen, vlen;
    const unsigned char *name = mqs_get_bytes(r, &nlen);
    MQLONG type = mqs_get_i32(r);
    const unsigned char *value = mqs_get_bytes(r, &vlen);
    if (r->bad || nlen == 0 || memchr(name, '\0', nlen)) {
      mqs_props_free(list);
      return -1;
    }
    char *cname = strndup((const char *)name, nlen);
    mqs_prop *p = cname ? prop_new(cname, type, value, (MQLONG)vlen) : NULL;
    free(cname);
    if (!p) {
      mqs_props_free(list);
      return -1;
    }
    *tail = p;
    tail = &p->next;
  }
  pthread_mutex_lock(&g_hmsg_mu);
  mqs_hmsg *h = id == MQHM_NONE ? NULL : hmsg_find(id);
  if (h) {
    mqs_props_free(h->props);
    h->props = list;
    h->cursor = -1;
    hmsg_changed(h);
    list = NULL;
  }
  pthread_mutex_unlock(&g_hmsg_mu);
  mqs_props_free(list);
  return 0;
}

/* ---- entering a handle call ------------------------------------------ */

/* Handle calls may name MQHC_UNASSOCIATED_HCONN instead of a connection;
 * otherwise the connection must be usable, as for any MQI call. On success
 * the handle table is locked and *c is the connection (NULL if none). */
static int enter(MQHCONN h, mqs_conn **c, PMQLONG cc, PMQLONG rc)
{
  *c = NULL;
  if (h != MQHC_UNASSOCIATED_HCONN && !(*c = mqs_conn_enter(h, cc, rc, 0)))
    return 0;
  pthread_mutex_lock(&g_hmsg_mu);
  return 1;
}

static void leave(mqs_conn *c, PMQLONG cc, PMQLONG rc, MQLONG ccv, MQLONG rcv)
{
  pthread_mutex_unlock(&g_hmsg_mu);
  if (c)
    mqs_conn_leave(c);
  mqs_set(cc, rc, ccv, rcv);
}

static MQLONG failed_if(MQLONG rc)
{
  return rc ? MQCC_FAILED : MQCC_OK;
}

/* ---- MQCRTMH / MQDLTMH --------------------------------------------- */

MQS_EXPORT void MQCRTMH(MQHCONN Hconn, PMQVOID pCrtMsgHOpts, PMQHMSG pHmsg,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_conn *c;
  if (!enter(Hconn, &c, pCompCode, pReason))
    return;
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
  leave(c, pCompCode, pReason, failed_if(rc), rc);
}

MQS_EXPORT void MQDLTMH(MQHCONN Hconn, PMQHMSG pHmsg, PMQVOID pDltMsgHOpts,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_conn *c;
  if (!enter(Hconn, &c, pCompCode, pReason))
    return;
  const MQDMHO *o = pDltMsgHOpts;
  mqs_hmsg *h = pHmsg ? hmsg_find(*pHmsg) : NULL;
  MQLONG rc = MQRC_NONE;
  if (!o || !mqs_strucid_ok(o, MQDMHO_STRUC_ID) || o->Version != MQDMHO_VERSION_1)
    rc = MQRC_DMHO_ERROR;
  else if (!h)
    rc = MQRC_HMSG_ERROR;
  if (!rc) {
    hmsg_free(h);
    *pHmsg = MQHM_UNUSABLE_HMSG;
  }
  leave(c, pCompCode, pReason, failed_if(rc), rc);
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
  mqs_conn *c;
  if (!enter(Hconn, &c, pCompCode, pReason))
    return;
  const MQSMPO *o = pSetPropOpts;
  mqs_hmsg *h = hmsg_find(Hmsg);
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
    hmsg_changed(h);
  }
  free(name);
  leave(c, pCompCode, pReason, failed_if(rc), rc);
}

/* ---- MQINQMP -------------------------------------------------------- */

static MQLONG inqmp_args(const mqs_hmsg *h, const MQIMPO *o, const MQPD *pd, const MQLONG *pType,
                         MQLONG ValueLength, const MQLONG *pDataLength)
{
  if (!h)
    return MQRC_HMSG_ERROR;
  if (!o || !mqs_strucid_ok(o, MQIMPO_STRUC_ID) || o->Version != MQIMPO_VERSION_1)
    return MQRC_IMPO_ERROR;
  MQLONG rc = check_pd(pd);
  if (rc)
    return rc;
  if (!pType)
    return MQRC_PROPERTY_TYPE_ERROR;
  if (!pDataLength)
    return MQRC_DATA_LENGTH_ERROR;
  if (ValueLength < 0)
    return MQRC_BUFFER_LENGTH_ERROR;
  return MQRC_NONE;
}

/* The property MQINQMP's options select, and its index, or NULL. */
static mqs_prop *inqmp_find(const mqs_hmsg *h, MQLONG options, const char *pattern, int *idx)
{
  int start = 0;
  if (options & MQIMPO_INQ_NEXT)
    start = h->cursor + 1;
  else if (options & MQIMPO_INQ_PROP_UNDER_CURSOR)
    start = h->cursor >= 0 ? h->cursor : -1;
  if (start < 0)
    return NULL;
  *idx = 0;
  for (mqs_prop *p = h->props; p; p = p->next, (*idx)++)
    if (*idx >= start && name_matches(pattern, p->name))
      return p;
  return NULL;
}

MQS_EXPORT void MQINQMP(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pInqPropOpts, PMQVOID pName,
                        PMQVOID pPropDesc, PMQLONG pType, MQLONG ValueLength, PMQVOID pValue,
                        PMQLONG pDataLength, PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_conn *c;
  if (!enter(Hconn, &c, pCompCode, pReason))
    return;
  MQIMPO *o = pInqPropOpts;
  mqs_hmsg *h = hmsg_find(Hmsg);
  char *pattern = NULL;
  MQLONG rc = inqmp_args(h, o, pPropDesc, pType, ValueLength, pDataLength);
  if (!rc)
    rc = charv_name(pName, &pattern);
  int idx = 0;
  mqs_prop *p = NULL;
  if (!rc && !(p = inqmp_find(h, o->Options, pattern, &idx)))
    rc = MQRC_PROPERTY_NOT_AVAILABLE;
  free(pattern);
  if (rc) {
    leave(c, pCompCode, pReason, MQCC_FAILED, rc);
    return;
  }

  *pType = p->type;
  *pDataLength = p->len;
  o->ReturnedEncoding = MQENC_NATIVE;
  o->ReturnedCCSID = QMGR_CCSID;
  MQCHARV *rn = &o->ReturnedName;
  MQLONG nlen = (MQLONG)strlen(p->name);
  char *dst = rn->VSPtr ? (char *)rn->VSPtr : (rn->VSOffset > 0 ? (char *)o + rn->VSOffset : NULL);
  if (dst && rn->VSBufSize < nlen)
    rc = MQRC_PROPERTY_NAME_TOO_BIG;
  else if (!(o->Options & MQIMPO_QUERY_LENGTH) && p->len > ValueLength)
    rc = MQRC_PROPERTY_VALUE_TOO_BIG;
  if (!rc) {
    if (dst) {
      memcpy(dst, p->name, (size_t)nlen);
      rn->VSLength = nlen;
      rn->VSCCSID = QMGR_CCSID;
    }
    if (!(o->Options & MQIMPO_QUERY_LENGTH) && p->len > 0)
      memcpy(pValue, p->value, (size_t)p->len);
    h->cursor = idx;
  }
  leave(c, pCompCode, pReason, failed_if(rc), rc);
}

/* ---- MQDLTMP -------------------------------------------------------- */

MQS_EXPORT void MQDLTMP(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pDltPropOpts, PMQVOID pName,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  mqs_conn *c;
  if (!enter(Hconn, &c, pCompCode, pReason))
    return;
  const MQDMPO *o = pDltPropOpts;
  mqs_hmsg *h = hmsg_find(Hmsg);
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
    leave(c, pCompCode, pReason, MQCC_FAILED, rc);
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
    leave(c, pCompCode, pReason, MQCC_WARNING, MQRC_PROPERTY_NOT_AVAILABLE);
    return;
  }
  mqs_prop *dead = *pp;
  *pp = dead->next;
  dead->next = NULL;
  mqs_props_free(dead);
  hmsg_changed(h);
  if (h->cursor >= idx)      /* keep the inquiry cursor on the same property */
    h->cursor--;
  leave(c, pCompCode, pReason, MQCC_OK, MQRC_NONE);
}
