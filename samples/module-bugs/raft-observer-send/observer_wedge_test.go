package raft

import (
	"testing"
	"time"
)

// A blocking observer whose consumer stopped reading: raft's observe sends to it while holding
// observersLock's read lock (observer.go), so DeregisterObserver, which write-locks it, waits forever.
func TestBlockingObserverWedgesDeregister(t *testing.T) {
	r := &Raft{observers: make(map[uint64]*Observer)}
	ch := make(chan Observation) // the consumer returned without draining it
	obs := NewObserver(ch, true, nil)
	r.RegisterObserver(obs)
	go r.observe(LeaderObservation{Leader: "node-2"}) // as raft does on a leadership change
	time.Sleep(50 * time.Millisecond)
	r.DeregisterObserver(obs) // the consumer's shutdown path
}
