package embedded

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Queues are a queue manager's local queues. In YAML each entry is a queue
// name, or a mapping of name, maxDepth and maxMsgLength for a queue with
// limits of its own; both forms mix in one list.
type Queues []QueueConfig

// QueueNames are queues with the given names and their queue manager's
// limits.
func QueueNames(names ...string) Queues {
	qs := make(Queues, len(names))
	for i, name := range names {
		qs[i].Name = name
	}
	return qs
}

// Names lists the queues' names.
func (qs Queues) Names() []string {
	names := make([]string, len(qs))
	for i, q := range qs {
		names[i] = q.Name
	}
	return names
}

// String is the names, comma-separated, as a list in an environment
// variable or the configuration reference writes them.
func (qs Queues) String() string { return strings.Join(qs.Names(), ",") }

// UnmarshalYAML reads a list of queues, each a name or a mapping.
func (qs *Queues) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("must be a list of strings, the queue names (or of mappings of name, maxDepth and maxMsgLength)")
	}
	list := make(Queues, len(n.Content))
	for i, en := range n.Content {
		if err := list[i].UnmarshalYAML(en); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
	}
	*qs = list
	return nil
}

// UnmarshalYAML reads a queue name or a mapping of name, maxDepth and
// maxMsgLength; any other key is an error naming it.
func (q *QueueConfig) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*q = QueueConfig{Name: n.Value}
		return nil
	case yaml.MappingNode:
		*q = QueueConfig{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			var err error
			switch kn.Value {
			case "name":
				err = vn.Decode(&q.Name)
			case "maxDepth":
				err = vn.Decode(&q.MaxDepth)
			case "maxMsgLength":
				err = vn.Decode(&q.MaxMsgLength)
			case "backoutThreshold":
				err = vn.Decode(&q.BackoutThreshold)
			case "backoutRequeueQueue":
				err = vn.Decode(&q.BackoutRequeueQueue)
			default:
				return fmt.Errorf("line %d: unknown queue key %q (want name, maxDepth, maxMsgLength, "+
					"backoutThreshold or backoutRequeueQueue)", kn.Line, kn.Value)
			}
			if err != nil {
				return fmt.Errorf("line %d: queue %s: %w", vn.Line, kn.Value, err)
			}
		}
		return nil
	}
	return fmt.Errorf("line %d: a queue is its name or a mapping of name, maxDepth and maxMsgLength", n.Line)
}

// MarshalYAML writes a queue with no limits of its own as its name.
func (q QueueConfig) MarshalYAML() (any, error) {
	if q == (QueueConfig{Name: q.Name}) {
		return q.Name, nil
	}
	return struct {
		Name                string `yaml:"name"`
		MaxDepth            int    `yaml:"maxDepth,omitempty"`
		MaxMsgLength        int    `yaml:"maxMsgLength,omitempty"`
		BackoutThreshold    int    `yaml:"backoutThreshold,omitempty"`
		BackoutRequeueQueue string `yaml:"backoutRequeueQueue,omitempty"`
	}{q.Name, q.MaxDepth, q.MaxMsgLength, q.BackoutThreshold, q.BackoutRequeueQueue}, nil
}
