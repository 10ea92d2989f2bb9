package mq

// Targets reports how many targets the pool keeps state for, so tests can
// see the background goroutine forget a target once it has no connection in
// use or idle and no Acquire under way.
func (p *Pool) Targets() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.targets)
}
