// Package session tracks chat client sessions.
package session

import (
	"sync"
	"sync/atomic"
	"time"
)

var Heartbeats atomic.Int64

// Session is one connected chat client.
type Session struct {
	ID       int
	mu       sync.Mutex
	lastSeen time.Time
	closed   bool
}

// Open starts the session's heartbeat. The ticker is never stopped and the
// loop has no exit: closing the session leaves the goroutine behind.
func Open(id int, every time.Duration) *Session {
	s := &Session{ID: id, lastSeen: time.Now()}
	go s.heartbeat(every)
	return s
}

func (s *Session) heartbeat(every time.Duration) {
	t := time.NewTicker(every)
	Heartbeats.Add(1)
	for range t.C {
		s.mu.Lock()
		if !s.closed {
			s.lastSeen = time.Now()
		}
		s.mu.Unlock()
	}
}

// Close marks the session closed (but does not stop its heartbeat).
func (s *Session) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// Registry janitor: one healthy, stoppable ticker loop.
type Janitor struct {
	stop chan struct{}
}

func StartJanitor(every time.Duration) *Janitor {
	j := &Janitor{stop: make(chan struct{})}
	go j.run(every)
	return j
}

func (j *Janitor) run(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-j.stop:
			return
		}
	}
}
