// Package responder serves request/reply probes: the responders the
// daemon runs (config responders:) get requests from a queue and answer
// each to its ReplyToQ/ReplyToQMgr with CorrelId = the request's MsgId,
// stamping when they got the request and put the reply
// (mqprobe.reqGetAt, mqprobe.rspPutAt), so a requestReply TEST can split
// its round trips into hops. A responder replies only to queues its
// target's allowlist admits and never to SYSTEM.* queues; it dead-letters
// a request it may not answer (MQDLH with the reason), and a reply it
// cannot deliver, as a queue manager would.
package responder

import (
	"fmt"
	"slices"

	"github.com/mqprobe/mqprobe/internal/configcheck"
)

// Limits of the responders section: each worker holds an MQ connection.
const (
	MaxResponders  = 16
	MaxConcurrency = 16
	mqNameMax      = 48
)

// Config is one entry of the responders section.
type Config struct {
	Name string `yaml:"name" desc:"Responder name, unique: the responder label of its metrics and its log lines"`
	// TargetRef or QueueManager says where the responder connects, as a
	// command's targetRef or inline target would.
	TargetRef    string `yaml:"targetRef" desc:"targets.profiles entry to connect with; its queue and allowedQueues are the reply queues it may answer to"`
	QueueManager string `yaml:"queueManager" desc:"Without targetRef: the queue manager of an inline target (within targets.inline, whose queues patterns are the reply queues it may answer to)"`
	Queue        string `yaml:"queue" desc:"Request queue served (a local queue); with targetRef, default its profile's queue"`
	Concurrency  int    `yaml:"concurrency" desc:"Requests served at once, each by a worker on its own MQ connection: 1 to 16 (0 is 1)"`
}

// Validate checks the responders section; profiles are the names of
// targets.profiles.
func Validate(cfgs []Config, profiles []string) error {
	var v configcheck.Errors
	if len(cfgs) > MaxResponders {
		v.Fail("responders", "at most %d responders (got %d)", MaxResponders, len(cfgs))
	}
	seen := map[string]bool{}
	for i, c := range cfgs {
		key := fmt.Sprintf("responders[%d]", i)
		switch {
		case c.Name == "":
			v.Fail(key+".name", "is required")
		case seen[c.Name]:
			v.Fail(key+".name", "%q names another responder too: names must be unique", c.Name)
		}
		seen[c.Name] = true
		switch {
		case c.TargetRef != "" && c.QueueManager != "":
			v.Fail(key, "give targetRef or queueManager, not both")
		case c.TargetRef != "" && !slices.Contains(profiles, c.TargetRef):
			v.Fail(key+".targetRef", "%q names no targets.profiles entry", c.TargetRef)
		case c.TargetRef == "" && c.QueueManager == "":
			v.Fail(key, "targetRef or queueManager is required")
		case c.QueueManager != "":
			v.MQName(key+".queueManager", c.QueueManager, mqNameMax)
		}
		if c.Queue != "" {
			v.MQName(key+".queue", c.Queue, mqNameMax)
		} else if c.TargetRef == "" {
			v.Fail(key+".queue", "is required without targetRef")
		}
		v.Between(key+".concurrency", c.Concurrency, 0, MaxConcurrency)
	}
	return v.Err()
}

// workers is how many requests c serves at once.
func (c Config) workers() int { return max(c.Concurrency, 1) }
