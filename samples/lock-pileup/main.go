// Command peerstore reproduces a lock pile-up behind WaitGroup waiters: a
// compaction holds the routing table's write lock while it waits for a flush
// that never comes; every query's children queue on that lock in Add, so the
// queries wait in WaitGroup.Wait; lookups queue on the read lock, and a few
// refresh and gossip goroutines reach the same Add site through other stacks.
package main

import (
	"flag"
	"strconv"
	"time"

	"example.com/peerstore/internal/gossip"
	"example.com/peerstore/internal/lookup"
	"example.com/peerstore/internal/peers"
	"example.com/peerstore/internal/query"
	"leakscope.local/dumpkit"
)

var (
	queries = flag.Int("queries", 300, "queries; half ask 2 peers, half 3")
	lookups = flag.Int("lookups", 40, "lookups queued on the read lock")
	refresh = flag.Int("refreshers", 20, "refresh goroutines queued in Add")
	merges  = flag.Int("merges", 7, "gossip merges queued in Add")
)

func main() {
	h := dumpkit.Flags()
	t := peers.NewTable()
	flushed := make(chan struct{})
	go t.Compact(flushed)
	time.Sleep(50 * time.Millisecond) // the compaction holds the lock
	for i := 0; i < *queries; i++ {
		q := &query.Query{Table: t}
		go q.Run(2 + i%2)
	}
	for i := 0; i < *lookups; i++ {
		go lookup.Serve(t, "peer-"+strconv.Itoa(i))
	}
	r := &gossip.Refresher{Table: t}
	for i := 0; i < *refresh; i++ {
		go r.Tick()
	}
	for i := 0; i < *merges; i++ {
		go gossip.Merge(t, "n-"+strconv.Itoa(i))
	}
	h.Finish()
	close(flushed)
}
