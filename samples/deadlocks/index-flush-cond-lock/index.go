// Package index: Flush holds the index lock while it waits on the write-ahead log's condition for
// "all appended entries synced"; the syncer must take the index lock to read the checkpoint before
// it can Broadcast. Cond.Wait releases only the log's own mutex, not idx.mu.
package index

import "sync"

type wal struct {
	mu       sync.Mutex
	synced   *sync.Cond
	appended int
	durable  int
}

type Index struct {
	path       string
	mu         sync.Mutex
	checkpoint int
	log        *wal
	kick       chan struct{}
}

func Open(path string) *Index {
	w := &wal{}
	w.synced = sync.NewCond(&w.mu)
	idx := &Index{path: path, log: w, kick: make(chan struct{}, 1)}
	go idx.syncer()
	return idx
}

func (idx *Index) syncer() {
	for range idx.kick {
		idx.mu.Lock() //stuck:syncer
		cp := idx.checkpoint
		idx.mu.Unlock()
		idx.log.mu.Lock()
		if idx.log.appended > cp {
			idx.log.durable = idx.log.appended
		}
		idx.log.synced.Broadcast()
		idx.log.mu.Unlock()
	}
}

func (idx *Index) Append(n int) {
	idx.log.mu.Lock()
	idx.log.appended += n
	idx.log.mu.Unlock()
}

func (idx *Index) Flush() {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	idx.checkpoint++
	idx.kick <- struct{}{}
	idx.log.mu.Lock()
	for idx.log.durable < idx.log.appended {
		idx.log.synced.Wait() //stuck:flush
	}
	idx.log.mu.Unlock()
}
