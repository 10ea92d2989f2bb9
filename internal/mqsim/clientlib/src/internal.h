/*
 * internal.h -- private declarations of the MQI client library (not installed).
 *
 * The library is a thin client of mqserver (internal/mqsim/PROTOCOL.md):
 * every connection (hConn) is one TCP connection, every MQI call one request
 * frame and one reply frame. Queue semantics live in the server only; the
 * client validates what it must read, marshals, and copies replies back.
 * Message handles and their properties are the client's own, as in IBM's
 * client.
 *
 * Concurrency: a connection has its own mutex, held for a whole call, so the
 * frames of two threads never interleave on one socket. The connection table
 * and the message-handle table each have a short-lived mutex of their own.
 */
#ifndef MQSTUB_INTERNAL_H
#define MQSTUB_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "cmqc.h"
#include "cmqxc.h"
#include "cmqstrc.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the mqserver protocol sends MQMDs as they lie in memory: little-endian hosts only"
#endif

#define MQS_EXPORT __attribute__((visibility("default")))

/* ---- protocol (PROTOCOL.md) --------------------------------------- */
enum {
  MQS_OP_CONNECT = 1, MQS_OP_DISC, MQS_OP_OPEN, MQS_OP_CLOSE, MQS_OP_PUT, MQS_OP_PUT1,
  MQS_OP_GET, MQS_OP_INQ, MQS_OP_CMIT, MQS_OP_BACK, MQS_OP_STAT, MQS_OP_SET,
  MQS_OP_REOPEN = 16,
};
#define MQS_REPLY_BIT        0x8000u
#define MQS_FLAG_NO_REPLY    0x0001u   /* an asynchronous put: the server sends no reply */
#define MQS_PROTOCOL_VERSION 1
#define MQS_MAX_BODY         (104857600u + 65536u)  /* 100 MiB of data plus room */
#define MQS_MD_WIRE_LENGTH   364                    /* MQMD version 2 */

/* ---- timing ---------------------------------------------------------- */
#define MQS_DEFAULT_PORT       1414
#define MQS_CONNECT_TIMEOUT_MS 10000  /* TCP connect to one ConnectionName entry */
#define MQS_SERVER_HBINT       300    /* a SVRCONN's default HBINT, when the server names none */

/* ---- encoding (wire.c) ----------------------------------------------- */
typedef struct {
  unsigned char *p;
  size_t         len, cap;
  int            oom;          /* an append failed: the frame must not be sent */
} mqs_buf;

void mqs_buf_init(mqs_buf *b, uint16_t op);   /* reserves the frame header */
void mqs_buf_reserve(mqs_buf *b, size_t more); /* room for more bytes (sets oom when there is none) */
void mqs_buf_free(mqs_buf *b);
void mqs_put_i32(mqs_buf *b, int32_t v);
void mqs_put_bytes(mqs_buf *b, const void *p, size_t n);
void mqs_put_cstr(mqs_buf *b, const char *s);
/* An MQCHAR field: up to the first NUL, trailing blanks trimmed. */
void mqs_put_fixed(mqs_buf *b, const char *field, size_t width);
void mqs_put_md(mqs_buf *b, const MQMD *md);  /* converts version 1 to 2 */

typedef struct {
  const unsigned char *p;
  size_t               len, off;
  int                  bad;    /* read past the end or a bad count: protocol error */
} mqs_rd;

int32_t mqs_get_i32(mqs_rd *r);
/* A str or bytes field: points into the frame, *n its length. */
const unsigned char *mqs_get_bytes(mqs_rd *r, size_t *n);
/* A str into an MQCHAR field of width, blank padded (too long: protocol error). */
void mqs_get_fixed(mqs_rd *r, char *field, size_t width);
void mqs_get_md(mqs_rd *r, MQMD *md2);        /* a whole version-2 MQMD */

/* ---- message properties (props.c) ------------------------------------ */
typedef struct mqs_prop {
  struct mqs_prop *next;        /* insertion order */
  char            *name;
  MQLONG           type;        /* MQTYPE_* */
  MQLONG           len;
  unsigned char   *value;
} mqs_prop;

void mqs_props_free(mqs_prop *p);

/* The properties a put sends: MQPMO v3 OriginalMsgHandle's, NewMsgHandle's
 * on top. Returns a reason code (MQRC_HMSG_ERROR for an unknown handle). */
MQLONG mqs_props_encode_for_put(mqs_buf *b, const MQPMO *pmo);
/* Whether Hmsg names a live message handle. */
int    mqs_hmsg_exists(MQHMSG h);
/* Decode a props field and, when h is a live handle, make it the handle's
 * properties. Returns 0, or -1 on a malformed field. */
int    mqs_props_decode_into(mqs_rd *r, MQHMSG h);
/* Handles created on a connection end with it. */
void   mqs_hmsg_drop_for_conn(MQHCONN hconn);

/* ---- channel selection (channel.c, ccdt.c) --------------------------- */
typedef struct {
  char   host[MQ_CONN_NAME_LENGTH + 1];
  int    port;
} mqs_endpoint;

#define MQS_MAX_PEER_NAME 1024   /* SSLPEER's longest value */

typedef struct mqs_channel {
  char          name[MQ_CHANNEL_NAME_LENGTH + 1];
  mqs_endpoint *endpoints;     /* ConnectionName entries, tried in order */
  int           nendpoints;
  MQLONG        max_msg_length; /* 0: the server channel's */
  MQLONG        hbint;          /* seconds; 0 none */
  MQLONG        keepalive;      /* KeepAliveInterval, seconds; <= 0 the library's */
  char          cipher[MQ_SSL_CIPHER_SPEC_LENGTH + 1]; /* "" without TLS */
  char          cert_label[MQ_CERT_LABEL_LENGTH + 1];   /* MQCD CertificateLabel */
  char          peer_name[MQS_MAX_PEER_NAME + 1];       /* MQCD SSLPeerName (SSLPEER) */
  MQLONG        def_reconnect;  /* MQCD DefReconnect, MQRCN_* */
} mqs_channel;

/* What MQCONNX sends and how it reaches the server. */
typedef struct {
  mqs_channel *channels;       /* in the order they are tried */
  int          nchannels;
  char         qmgr[MQ_Q_MGR_NAME_LENGTH + 1]; /* the name sent on CONNECT */
  char        *user, *password; /* from the MQCSP; NULL without one */
  char         appl[MQ_APPL_NAME_LENGTH + 1];
  MQLONG       cno_options;
  struct mqs_tls *tls;         /* the key repository; NULL when no channel has a CipherSpec */
} mqs_connect_params;

/* Read the MQCNO and its MQCD/MQSCO/MQCSP, or the MQSERVER variable, or a
 * CCDT, into p. Returns a reason code; p is then to be freed with
 * mqs_connect_params_free either way. */
MQLONG mqs_connect_params_read(PMQCHAR qmgr, const MQCNO *cno, mqs_connect_params *p);
void   mqs_connect_params_free(mqs_connect_params *p);
/* Parse "host(port),host(port)" (port 1414 when left out). Returns 0, or
 * -1 when the list is malformed. */
int    mqs_parse_conname(const char *s, mqs_endpoint **out, int *n);
/* The channels of a JSON CCDT (file:// URL) for the queue-manager name the
 * application gave. Returns a reason code. */
MQLONG mqs_ccdt_channels(const char *url, const char *qmgr, mqs_channel **out, int *n);
void   mqs_channels_free(mqs_channel *c, int n);

/* ---- TLS (tls.c) ------------------------------------------------------ */
typedef struct mqs_tls mqs_tls;

/* Read the key repository of MQSCO KeyRepository (else MQSSLKEYR): 2381
 * when it is missing, not PKCS #12 or its password is wrong or absent. */
MQLONG mqs_tls_load(const MQSCO *sco, mqs_tls **out);
void   mqs_tls_free(mqs_tls *t);
/* A channel's CipherSpec (2393 unknown) and SSLPEER (2399 malformed). */
MQLONG mqs_tls_check_channel(const mqs_channel *ch);
/* The TLS handshake on a connected socket (made non-blocking) for ch:
 * *ssl on success; 2393 when it fails (no common CipherSpec, an untrusted
 * server certificate, a certificate label the repository lacks), 2398
 * when the server's certificate does not match the channel's SSLPEER. */
MQLONG mqs_tls_start(mqs_tls *t, const mqs_channel *ch, int fd, int timeout_ms, void **ssl);
/* Move bytes through the TLS connection: > 0 bytes moved, 0 the peer
 * closed, -1 failed, or MQS_TLS_WANT_* to wait for the socket and retry. */
#define MQS_TLS_WANT_READ  (-2)
#define MQS_TLS_WANT_WRITE (-3)
long   mqs_tls_read(void *ssl, void *p, size_t n);
long   mqs_tls_write(void *ssl, const void *p, size_t n);
/* Whether decrypted bytes wait to be read (the socket may be quiet). */
int    mqs_tls_pending(void *ssl);
/* Whether the TLS layer itself failed (an alert from the server). */
int    mqs_tls_failed(void *ssl);
void   mqs_tls_close(void *ssl);

/* ---- connections (conn.c, net.c, reconnect.c) ------------------------- */
typedef struct mqs_reconnect mqs_reconnect;

typedef struct mqs_conn {
  struct mqs_conn *next;
  MQHCONN          id;
  pthread_mutex_t  mu;         /* held for a whole call */
  int              refs;       /* callers between enter and leave (table mutex) */
  int              closed;     /* MQDISC done: the handle is stale */
  int              broken;     /* the connection was lost: 2009 until MQDISC */
  int              fd;
  void            *ssl;        /* the TLS connection (an OpenSSL SSL); NULL: plain TCP */
  MQLONG           cno_options;
  MQLONG           max_msg_length; /* negotiated on CONNECT; 0 unknown */
  int              reply_timeout_ms;
  mqs_reconnect   *recon;      /* NULL unless reconnectable (reconnect.c) */
  int              in_uow;     /* a put or get under syncpoint since the last MQCMIT/MQBACK */
  int              uow_lost;   /* that unit of work went with a reconnection */
  int              call_syncpoint; /* set by MQPUT/MQPUT1/MQGET for mqs_call: under syncpoint */
  MQBYTE           connid[MQ_CONNECTION_ID_LENGTH]; /* the server's ConnectionId */
  uint32_t         async_seq;  /* MsgIds made for asynchronous puts (async.c) */
  mqs_buf          held;       /* asynchronous puts under syncpoint not sent yet (async.c) */
} mqs_conn;

/* Start an MQI call on Hconn: returns the connection with its mutex held,
 * or NULL with CompCode/Reason set: unknown or disconnected handle 2018,
 * broken 2009 (unless allow_broken), in use by another thread 2219
 * (MQCNO_HANDLE_SHARE_NO_BLOCK; otherwise the call waits its turn). */
mqs_conn *mqs_conn_enter(MQHCONN h, PMQLONG cc, PMQLONG rc, int allow_broken);
void      mqs_conn_leave(mqs_conn *c);

/* Send the request in b (consumed) and receive the reply into *reply (to be
 * freed by the caller) with r reading its body after compCode and reason.
 * timeout_ms < 0 waits as long as the connection lives. Returns 0, or the
 * reason the call got no reply: MQRC_CONNECTION_BROKEN after marking c
 * broken (any I/O error, timeout or protocol error), or
 * MQRC_STORAGE_NOT_AVAILABLE when the request could not be built. */
MQLONG mqs_call(mqs_conn *c, mqs_buf *b, int timeout_ms, unsigned char **reply, mqs_rd *r,
                MQLONG *cc, MQLONG *rc);
/* Mark c broken and close its socket. */
void   mqs_conn_break(mqs_conn *c);
/* One request/reply on fd, nothing else: 0, or -1 when it failed. */
int    mqs_exchange(int fd, void *ssl, mqs_buf *b, int timeout_ms, unsigned char **reply, mqs_rd *r,
                    MQLONG *cc, MQLONG *rc);
/* CONNECT c again with p (reconnection); on success c has its new socket
 * and limits, and qmid the queue manager's QMID. Returns a reason code. */
MQLONG mqs_conn_redial(mqs_conn *c, const mqs_connect_params *p, char *qmid, size_t qmidsz);

/* Automatic reconnection (reconnect.c). setup makes c reconnectable when
 * its options and configuration say so, taking p over (p is then empty);
 * -1 when out of memory. */
int    mqs_reconnect_setup(mqs_conn *c, mqs_connect_params *p, const mqs_channel *used, const char *qmid);
void   mqs_reconnect_free(mqs_reconnect *r);
/* Record / forget an object handle to reopen after a reconnection. */
void   mqs_reconnect_opened(mqs_conn *c, MQHOBJ hobj, const MQOD *od, MQLONG options);
void   mqs_reconnect_closed(mqs_conn *c, MQHOBJ hobj);
/* Reconnect a reconnectable c when its connection is lost. Returns a
 * reason code (2556, 2548, 2546) when that fails. */
MQLONG mqs_reconnect_ensure(mqs_conn *c);
/* Send the request in b (consumed) with MQS_FLAG_NO_REPLY: no reply comes.
 * Returns 0, or MQRC_CONNECTION_BROKEN / MQRC_STORAGE_NOT_AVAILABLE as
 * mqs_call does (async.c). */
MQLONG mqs_send_no_reply(mqs_conn *c, mqs_buf *b, int syncpoint);
/* Send the held asynchronous puts, if any: 0, or 2009 after marking c
 * broken. Every other frame goes after them. */
MQLONG mqs_flush_held(mqs_conn *c);
/* A MsgId or CorrelId for an asynchronous put, made by the client as IBM's
 * does: "AMQ ", the queue manager's name, a suffix unique to c and the put. */
void   mqs_async_new_id(mqs_conn *c, MQBYTE24 id);

/* Open a TCP connection to e within MQS_CONNECT_TIMEOUT_MS, with keepalive.
 * Returns the socket or -1. */
int  mqs_net_connect(const mqs_endpoint *e, MQLONG keepalive_s);
/* Write a whole frame / read one (body into a malloc'd buffer), through
 * ssl when it is not NULL. 0 or -1. */
int  mqs_net_send(int fd, void *ssl, const unsigned char *p, size_t n, int timeout_ms);
int  mqs_net_recv_frame(int fd, void *ssl, int timeout_ms, uint16_t *op, unsigned char **body, size_t *n);

/* ---- utilities (util.c) ---------------------------------------------- */
void    mqs_set(PMQLONG cc, PMQLONG rc, MQLONG ccv, MQLONG rcv);
void    mqs_fixed_to_c(char *dst, size_t dstsz, const char *src, size_t srclen);
void    mqs_c_to_fixed(char *dst, size_t dstlen, const char *src);
const char *mqs_prog_name(void);
int     mqs_strucid_ok(const void *p, const char *id);
/* A field given as pointer or offset from base (MQCHARV, MQCSP, MQSCO...). */
const void *mqs_ptr_or_offset(const void *base, MQPTR ptr, MQLONG offset);

/* ---- strings (used by the generated strtab.c) -------------------------- */
typedef struct { MQLONG v; const char *name; } mqs_strent;
const char *mqs_strlookup(const mqs_strent *t, size_t n, MQLONG v);

#endif /* MQSTUB_INTERNAL_H */
