// Package peers keeps the routing table of a peer-to-peer node behind one RWMutex.
package peers

import "sync"

type Table struct {
	mu    sync.RWMutex
	peers map[string]int
}

func NewTable() *Table { return &Table{peers: map[string]int{}} }

// Compact holds the write lock while it waits for a flush that never comes:
// every Add and Count queues behind it.
func (t *Table) Compact(flushed <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	<-flushed
}

// Add records that a peer answered.
func (t *Table) Add(id string) {
	t.mu.Lock()
	t.peers[id]++
	t.mu.Unlock()
}

// Count says how often a peer answered.
func (t *Table) Count(id string) int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.peers[id]
}
