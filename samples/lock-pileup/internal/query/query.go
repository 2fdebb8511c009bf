// Package query asks several peers at once and waits for all of them.
package query

import (
	"strconv"
	"sync"

	"example.com/peerstore/internal/peers"
)

type Query struct {
	Table *peers.Table
}

// Run starts one goroutine per peer and waits until each has recorded its answer.
func (q *Query) Run(fanout int) {
	var wg sync.WaitGroup
	for i := 0; i < fanout; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			q.record(i)
		}(i)
	}
	wg.Wait()
}

func (q *Query) record(i int) {
	q.Table.Add("peer-" + strconv.Itoa(i))
}
