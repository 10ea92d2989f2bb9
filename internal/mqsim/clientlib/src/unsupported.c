/*
 * unsupported.c -- MQI entry points the stub does not implement. They exist
 * so that programs link, and fail the way a queue manager without the
 * function would: MQCC_FAILED / MQRC_FUNCTION_NOT_SUPPORTED (2298).
 */
#include "internal.h"

#define NOT_SUPPORTED(cc, rc) mqs_set((cc), (rc), MQCC_FAILED, MQRC_FUNCTION_NOT_SUPPORTED)

MQS_EXPORT void MQBEGIN(MQHCONN Hconn, PMQVOID pBeginOptions, PMQLONG pCompCode, PMQLONG pReason)
{
  (void)Hconn; (void)pBeginOptions;
  NOT_SUPPORTED(pCompCode, pReason);
}

MQS_EXPORT void MQSUB(MQHCONN Hconn, PMQVOID pSubDesc, PMQHOBJ pHobj, PMQHOBJ pHsub,
                      PMQLONG pCompCode, PMQLONG pReason)
{
  (void)Hconn; (void)pSubDesc;
  if (pHobj && *pHobj == MQHO_NONE)
    *pHobj = MQHO_UNUSABLE_HOBJ;
  if (pHsub)
    *pHsub = MQHO_UNUSABLE_HOBJ;
  NOT_SUPPORTED(pCompCode, pReason);
}

MQS_EXPORT void MQSUBRQ(MQHCONN Hconn, MQHOBJ Hsub, MQLONG Action, PMQVOID pSubRqOpts,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  (void)Hconn; (void)Hsub; (void)Action; (void)pSubRqOpts;
  NOT_SUPPORTED(pCompCode, pReason);
}

MQS_EXPORT void MQCB(MQHCONN Hconn, MQLONG Operation, PMQVOID pCallbackDesc, MQHOBJ Hobj,
                     PMQVOID pMsgDesc, PMQVOID pGetMsgOpts, PMQLONG pCompCode, PMQLONG pReason)
{
  (void)Hconn; (void)Operation; (void)pCallbackDesc; (void)Hobj; (void)pMsgDesc; (void)pGetMsgOpts;
  NOT_SUPPORTED(pCompCode, pReason);
}

MQS_EXPORT void MQCTL(MQHCONN Hconn, MQLONG Operation, PMQVOID pControlOpts,
                      PMQLONG pCompCode, PMQLONG pReason)
{
  (void)Hconn; (void)Operation; (void)pControlOpts;
  NOT_SUPPORTED(pCompCode, pReason);
}

MQS_EXPORT void MQMHBUF(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pMsgHBufOpts, PMQVOID pName,
                        PMQVOID pMsgDesc, MQLONG BufferLength, PMQVOID pBuffer,
                        PMQLONG pDataLength, PMQLONG pCompCode, PMQLONG pReason)
{
  (void)Hconn; (void)Hmsg; (void)pMsgHBufOpts; (void)pName; (void)pMsgDesc;
  (void)BufferLength; (void)pBuffer;
  if (pDataLength)
    *pDataLength = 0;
  NOT_SUPPORTED(pCompCode, pReason);
}

MQS_EXPORT void MQBUFMH(MQHCONN Hconn, MQHMSG Hmsg, PMQVOID pBufMsgHOpts, PMQVOID pMsgDesc,
                        MQLONG BufferLength, PMQVOID pBuffer, PMQLONG pDataLength,
                        PMQLONG pCompCode, PMQLONG pReason)
{
  (void)Hconn; (void)Hmsg; (void)pBufMsgHOpts; (void)pMsgDesc; (void)BufferLength; (void)pBuffer;
  if (pDataLength)
    *pDataLength = 0;
  NOT_SUPPORTED(pCompCode, pReason);
}
