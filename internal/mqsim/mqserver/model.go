package mqserver

import (
	"fmt"
	"strings"

	"github.com/mqprobe/mqprobe/internal/mq/embedded"
)

// Model queues (DEFINE QMODEL DEFTYPE(TEMPDYN)): MQOPEN of one creates a
// temporary dynamic queue named from the MQOD's DynamicQName, which lives
// until the handle that created it is closed (or its connection ends), as
// on IBM MQ. Every queue manager the server serves has the model queues of
// Config.ModelQueues.

// ModelQueue is a model queue of every queue manager served.
type ModelQueue struct {
	Name string
	// MaxDepth is MAXDEPTH of the dynamic queues it creates; 0 is the
	// queue manager's.
	MaxDepth int
}

// Model queues of IBM's developer container.
const (
	DefaultModelQueue = "SYSTEM.DEFAULT.MODEL.QUEUE"
	AppModelQueue     = "DEV.APP.MODEL.QUEUE"
)

// DefaultModelQueues returns SYSTEM.DEFAULT.MODEL.QUEUE, which every IBM
// queue manager has, and the developer container's DEV.APP.MODEL.QUEUE.
func DefaultModelQueues() []ModelQueue {
	return []ModelQueue{{Name: DefaultModelQueue}, {Name: AppModelQueue}}
}

// Dynamic queue names: a DynamicQName ending in '*' is that prefix and a
// unique suffix of this many hexadecimal digits, as IBM MQ makes them
// (AMQ.* → AMQ.6A1B2C3D00000001); the prefix may be 33 characters at most.
const (
	dynamicSuffixLength = 16
	maxQueueNameLength  = 48
)

func (srv *Server) isModelQueue(name string) bool {
	_, ok := srv.models[name]
	return ok
}

// dynamicName is the queue name a DynamicQName asks for, or "" when it is
// not valid (MQRC_DYNAMIC_Q_NAME_ERROR).
func (srv *Server) dynamicName(pattern string) string {
	prefix, generic := strings.CutSuffix(pattern, "*")
	switch {
	case pattern == "", strings.Contains(prefix, "*"), len(pattern) > maxQueueNameLength:
		return ""
	case !generic:
		return pattern
	case len(prefix) > maxQueueNameLength-dynamicSuffixLength+1:
		return ""
	}
	return fmt.Sprintf("%s%08X%08X", prefix, uint32(srv.started.Unix()), uint32(srv.dynamicSeq.Add(1)))
}

// openModel creates a temporary dynamic queue from the model queue model
// and opens it. The dynamic queue lives as long as the handle: its close,
// or the end of the connection, deletes it with its messages. MAXHANDS
// bounds how many one connection holds.
func (s *session) openModel(model, dynamicQName string, options int32) (*object, int32) {
	if len(s.objects) >= maxHandlesPerConn {
		return nil, rcHandleNotAvailable
	}
	name := s.srv.dynamicName(dynamicQName)
	if name == "" {
		return nil, rcDynamicQNameError
	}
	cfg := embedded.QueueConfig{Name: name, MaxDepth: s.srv.models[model].MaxDepth}
	if err := s.srv.backend.DefineQueue(s.qmgr.Name, cfg, embedded.TemporaryDynamic); err != nil {
		_, rc := reasonOf(err)
		return nil, rc
	}
	q, rc := s.openQueue(otQ, name, "", options)
	if rc != rcNone {
		_ = s.srv.backend.DeleteQueue(s.qmgr.Name, name)
		return nil, rc
	}
	return &object{queue: q, options: options, dynamic: name}, rcNone
}

// dropDynamic deletes the dynamic queue o created, if any; o's handle is
// closed.
func (s *session) dropDynamic(o *object) {
	if o.dynamic == "" {
		return
	}
	if err := s.srv.backend.DeleteQueue(s.qmgr.Name, o.dynamic); err != nil {
		s.srv.log.Warn("mqserver: deleting a temporary dynamic queue", "queue", o.dynamic, "err", err)
	}
	o.dynamic = ""
}

// endConnection forgets the MQI connection that has just ended and its
// handles (the queue manager closed them), deleting the dynamic queues
// they created.
func (s *session) endConnection() {
	for _, o := range s.objects {
		s.dropDynamic(o)
	}
	s.srv.handles.Add(-int64(len(s.objects)))
	clear(s.objects)
	s.conn = nil
}

// definitionType is MQIA_DEFINITION_TYPE of a local queue.
func (srv *Server) definitionType(qmgr, name string) int32 {
	for _, d := range srv.queueDefinitions(qmgr) {
		if d.Name == name && d.DefinitionType == embedded.TemporaryDynamic {
			return qdtTemporaryDynamic
		}
	}
	return qdtPredefined
}

// queueDefinitions lists a queue manager's queues; none when it is not
// served.
func (srv *Server) queueDefinitions(qmgr string) []embedded.QueueDefinition {
	defs, err := srv.backend.QueueDefinitions(qmgr)
	if err != nil {
		return nil
	}
	return defs
}
