// Package peers is a lock pile-up at scale: N queries, each waiting in WaitGroup.Wait for K
// lookups of its own, every lookup queued for the read lock of one routing table, whose write lock
// a compaction holds while it waits for a flush that never comes (its holder is stuck elsewhere).
package peers

import (
	"strconv"
	"sync"
)

// Table is the routing table every lookup reads.
type Table struct {
	mu    sync.RWMutex
	peers map[string]int
}

func NewTable() *Table { return &Table{peers: map[string]int{}} }

// Compact takes the write lock, says so on locked, and waits for a flush under the lock.
func (t *Table) Compact(flushed <-chan struct{}, locked chan<- struct{}) {
	t.mu.Lock()
	close(locked)
	<-flushed
	t.mu.Unlock()
}

// Lookup reads one peer under the read lock.
//
//go:noinline
func (t *Table) Lookup(id string) int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.peers[id]
}

// Query asks K peers at once and waits for all of them.
type Query struct {
	Table *Table
	wg    sync.WaitGroup
}

// Run starts k lookups and waits for them; started counts every goroutine about to block.
func (q *Query) Run(k int, started *sync.WaitGroup) {
	q.wg.Add(k)
	for i := 0; i < k; i++ {
		go q.ask(i, started)
	}
	started.Done()
	q.wg.Wait()
}

func (q *Query) ask(i int, started *sync.WaitGroup) {
	defer q.wg.Done()
	started.Done()
	q.Table.Lookup("peer-" + strconv.Itoa(i))
}
