package mqserver

// MQI constants the server reads and answers with, with IBM's values
// (cmqc.h). The mq port names only the reason codes its callers meet.

// Completion codes.
const (
	ccOK      int32 = 0
	ccWarning int32 = 1
	ccFailed  int32 = 2
)

// Reason codes.
const (
	rcNone                  int32 = 0
	rcBufferLengthError     int32 = 2005
	rcCharAttrLengthError   int32 = 2006
	rcCharAttrsTooShort     int32 = 2008
	rcConnectionBroken      int32 = 2009
	rcDataLengthError       int32 = 2010
	rcDynamicQNameError     int32 = 2011
	rcExpiryError           int32 = 2013
	rcHandleNotAvailable    int32 = 2017
	rcHobjError             int32 = 2019
	rcIntAttrCountError     int32 = 2021
	rcIntAttrCountTooSmall  int32 = 2022
	rcMDError               int32 = 2026
	rcMissingReplyToQ       int32 = 2027
	rcMsgTypeError          int32 = 2029
	rcMsgTooBigForQMgr      int32 = 2031
	rcNotAuthorized         int32 = 2035
	rcNotOpenForInput       int32 = 2037
	rcNotOpenForInquire     int32 = 2038
	rcNotOpenForOutput      int32 = 2039
	rcObjectTypeError       int32 = 2043
	rcOptionNotValidForType int32 = 2045
	rcOptionsError          int32 = 2046
	rcPersistenceError      int32 = 2047
	rcPriorityExceedsMax    int32 = 2049
	rcPriorityError         int32 = 2050
	rcQTypeError            int32 = 2057
	rcQMgrNotAvailable      int32 = 2059
	rcSelectorCountError    int32 = 2065
	rcSelectorError         int32 = 2067
	rcSelectorNotForType    int32 = 2068
	rcTruncatedMsgFailed    int32 = 2080
	rcUnknownObjectName     int32 = 2085
	rcUnknownRemoteQMgr     int32 = 2087
	rcWaitIntervalError     int32 = 2090
	rcMatchOptionsError     int32 = 2247
	rcFunctionNotSupported  int32 = 2298
	rcPropertyNameError     int32 = 2442
	rcPropertyTypeError     int32 = 2473
	rcUnknownChannelName    int32 = 2540
)

// Object types (MQOT_*).
const (
	otQ        int32 = 1
	otQMgr     int32 = 5
	otNamelist int32 = 2
	otTopic    int32 = 8
)

// Open options (MQOO_*).
const (
	ooInputAsQDef        int32 = 1
	ooInputShared        int32 = 2
	ooInputExclusive     int32 = 4
	ooBrowse             int32 = 8
	ooOutput             int32 = 16
	ooInquire            int32 = 32
	ooSet                int32 = 64
	ooInput                    = ooInputAsQDef | ooInputShared | ooInputExclusive
	ooAccess                   = ooInput | ooBrowse | ooOutput | ooInquire | ooSet
	ooSaveAllContext     int32 = 128
	ooPassIdentity       int32 = 256
	ooPassAll            int32 = 512
	ooSetIdentity        int32 = 1024
	ooSetAll             int32 = 2048
	ooAlternateUser      int32 = 4096
	ooFailIfQuiescing    int32 = 8192
	ooBindOnOpen         int32 = 16384
	ooBindNotFixed       int32 = 32768
	ooResolveNames       int32 = 65536
	ooCoOp               int32 = 131072
	ooResolveLocalQ      int32 = 262144
	ooNoReadAhead        int32 = 524288
	ooReadAhead          int32 = 1048576
	ooNoMulticast        int32 = 2097152
	ooBindOnGroup        int32 = 4194304
	ooKnown                    = ooAccess | ooSaveAllContext | ooPassIdentity | ooPassAll | ooSetIdentity | ooSetAll | ooAlternateUser | ooFailIfQuiescing | ooBindOnOpen | ooBindNotFixed | ooResolveNames | ooCoOp | ooResolveLocalQ | ooNoReadAhead | ooReadAhead | ooNoMulticast | ooBindOnGroup
	ooQMgrAllowed              = ooInquire | ooSet | ooAlternateUser | ooFailIfQuiescing | ooResolveNames
	coQuiesce            int32 = 32  // MQCO_QUIESCE, the one MQCLOSE option for a predefined queue
	coDelete             int32 = 1   // MQCO_DELETE, for the handle that created a dynamic queue
	coDeletePurge        int32 = 2   // MQCO_DELETE_PURGE
	maxHandlesPerConn          = 256 // MAXHANDS
	maxSelectors               = 256
	defaultQueuePriority int32 = 0 // DEFPRTY
)

// Put options (MQPMO_*).
const (
	pmoSyncpoint       int32 = 2
	pmoNoSyncpoint     int32 = 4
	pmoDefaultContext  int32 = 32
	pmoNewMsgID        int32 = 64
	pmoNewCorrelID     int32 = 128
	pmoPassIdentity    int32 = 256
	pmoPassAll         int32 = 512
	pmoSetIdentity     int32 = 1024
	pmoSetAll          int32 = 2048
	pmoAlternateUser   int32 = 4096
	pmoFailIfQuiescing int32 = 8192
	pmoNoContext       int32 = 16384
	pmoLogicalOrder    int32 = 32768
	pmoAsyncResponse   int32 = 65536
	pmoSyncResponse    int32 = 131072
	pmoResolveLocalQ   int32 = 262144
	pmoMDForOutputOnly int32 = 8388608
	pmoContext               = pmoNoContext | pmoDefaultContext | pmoPassIdentity | pmoPassAll | pmoSetIdentity | pmoSetAll
	pmoKnown                 = pmoSyncpoint | pmoNoSyncpoint | pmoContext | pmoNewMsgID | pmoNewCorrelID | pmoAlternateUser | pmoFailIfQuiescing | pmoLogicalOrder | pmoAsyncResponse | pmoSyncResponse | pmoResolveLocalQ | pmoMDForOutputOnly
)

// Get options (MQGMO_*) and match options (MQMO_*).
const (
	gmoWait                  int32 = 1
	gmoSyncpoint             int32 = 2
	gmoNoSyncpoint           int32 = 4
	gmoSetSignal             int32 = 8
	gmoBrowseFirst           int32 = 16
	gmoBrowseNext            int32 = 32
	gmoAcceptTruncated       int32 = 64
	gmoMarkSkipBackout       int32 = 128
	gmoMsgUnderCursor        int32 = 256
	gmoLock                  int32 = 512
	gmoUnlock                int32 = 1024
	gmoBrowseMsgUnderCursor  int32 = 2048
	gmoSyncpointIfPersistent int32 = 4096
	gmoFailIfQuiescing       int32 = 8192
	gmoConvert               int32 = 16384
	gmoLogicalOrder          int32 = 32768
	gmoCompleteMsg           int32 = 65536
	gmoAllMsgsAvailable      int32 = 131072
	gmoAllSegmentsAvailable  int32 = 262144
	gmoMarkBrowseHandle      int32 = 1048576
	gmoMarkBrowseCoOp        int32 = 2097152
	gmoUnmarkBrowseCoOp      int32 = 4194304
	gmoUnmarkBrowseHandle    int32 = 8388608
	gmoUnmarkedBrowseMsg     int32 = 16777216
	gmoPropertiesForceRFH2   int32 = 33554432
	gmoNoProperties          int32 = 67108864
	gmoPropertiesInHandle    int32 = 134217728
	gmoPropertiesCompat      int32 = 268435456
	gmoBrowse                      = gmoBrowseFirst | gmoBrowseNext | gmoBrowseMsgUnderCursor
	gmoCursor                      = gmoBrowse | gmoMsgUnderCursor
	gmoSyncpoints                  = gmoSyncpoint | gmoNoSyncpoint | gmoSyncpointIfPersistent
	gmoProperties                  = gmoPropertiesInHandle | gmoNoProperties | gmoPropertiesForceRFH2 | gmoPropertiesCompat
	gmoUnsupported                 = gmoSetSignal | gmoLock | gmoUnlock | gmoMarkBrowseHandle | gmoMarkBrowseCoOp | gmoUnmarkBrowseCoOp | gmoUnmarkBrowseHandle | gmoUnmarkedBrowseMsg
	gmoKnown                       = gmoWait | gmoSyncpoints | gmoCursor | gmoAcceptTruncated | gmoMarkSkipBackout | gmoFailIfQuiescing | gmoConvert | gmoLogicalOrder | gmoCompleteMsg | gmoAllMsgsAvailable | gmoAllSegmentsAvailable | gmoProperties | gmoUnsupported

	moMatchMsgID        int32 = 1
	moMatchCorrelID     int32 = 2
	moMatchGroupID      int32 = 4
	moMatchMsgSeqNumber int32 = 8
	moSupported               = moMatchMsgID | moMatchCorrelID | moMatchGroupID | moMatchMsgSeqNumber

	wiUnlimited int32 = -1
)

// MQMD values.
const (
	mdVersion1       int32 = 1
	mdVersion2       int32 = 2
	mtRequest        int32 = 1
	mtDatagram       int32 = 8
	mtSystemFirst    int32 = 1
	mtApplLast       int32 = 999999999
	perNotPersistent int32 = 0
	perPersistent    int32 = 1
	perAsQDef        int32 = 2
	priAsQDef        int32 = -1
	eiUnlimited      int32 = -1
	encNative        int32 = 546
	ccsiQMgr         int32 = 0
	ccsiInherit      int32 = -2
	ccsiAppl         int32 = -3
	qmgrCCSID        int32 = 1208
	atNoContext      int32 = 0
	atUnix           int32 = 6
	olUndefined      int32 = -1
	maxPriority      int32 = 9
)

// Property types (MQTYPE_*).
const (
	typeBoolean    int32 = 4
	typeByteString int32 = 8
	typeInt8       int32 = 16
	typeInt16      int32 = 32
	typeInt32      int32 = 64
	typeInt64      int32 = 128
	typeFloat32    int32 = 256
	typeFloat64    int32 = 512
	typeNull       int32 = 2
	typeString     int32 = 1024
)
