// Package feed fans price quotes out to subscribers.
package feed

import (
	"sync"
	"sync/atomic"
)

// Quote is one price update.
type Quote struct {
	Symbol string
	Price  int
}

// Subscriber receives every published quote on its inbox.
type Subscriber struct {
	ID    int
	inbox chan Quote
	// Received counts the quotes its reader consumed.
	Received atomic.Int64
}

// Hub holds the subscribers. Publish hands each quote to each subscriber in its own goroutine, so a
// slow subscriber never holds up the others.
type Hub struct {
	mu   sync.Mutex
	subs []*Subscriber
}

// Subscribe registers a subscriber with an unbuffered inbox.
func (h *Hub) Subscribe(id int) *Subscriber {
	s := &Subscriber{ID: id, inbox: make(chan Quote)}
	h.mu.Lock()
	h.subs = append(h.subs, s)
	h.mu.Unlock()
	return s
}

// Publish fans q out to every subscriber.
func (h *Hub) Publish(q Quote) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.subs {
		go h.deliver(s, q)
	}
}

// deliver blocks until the subscriber's reader takes q. When the reader has gone away without
// unsubscribing, nobody ever will: the sender stays here forever.
func (h *Hub) deliver(s *Subscriber, q Quote) {
	s.inbox <- q
}

// Read consumes the inbox until the client disconnects (disconnect returns true). The bug: it returns
// without removing the subscriber from the hub, so Publish keeps starting deliveries to it.
func (s *Subscriber) Read(disconnect func(Quote) bool) {
	for q := range s.inbox {
		s.Received.Add(1)
		if disconnect(q) {
			return
		}
	}
}
