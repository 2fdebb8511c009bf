// Package quote serves price quotes. Each request looks the price up in a
// goroutine and waits for the answer, but not longer than Timeout.
package quote

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// Quote is one price answer.
type Quote struct {
	SKU   string
	Cents int
	Stale bool
}

// Service is the /quote handler.
type Service struct {
	Backend *Backend
	Timeout time.Duration

	served    atomic.Int64
	abandoned atomic.Int64
}

// ServeHTTP starts the lookup and waits for its result or the timeout.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sku := r.URL.Query().Get("sku")
	result := make(chan Quote) // BUG: unbuffered; nobody receives once we time out
	go s.lookup(r.Context(), sku, result)
	select {
	case q := <-result:
		s.served.Add(1)
		fmt.Fprintf(w, "%s %d\n", q.SKU, q.Cents)
	case <-time.After(s.Timeout):
		s.abandoned.Add(1)
		http.Error(w, "quote: upstream timeout", http.StatusGatewayTimeout)
	}
}

// lookup asks the backend and hands the answer to the waiting handler.
func (s *Service) lookup(ctx context.Context, sku string, result chan<- Quote) {
	q := s.Backend.Price(ctx, sku)
	result <- q
}

// Served is the number of requests answered with a price.
func (s *Service) Served() int64 { return s.served.Load() }

// Abandoned is the number of requests that timed out: each left its lookup
// goroutine behind, blocked forever on the result send.
func (s *Service) Abandoned() int64 { return s.abandoned.Load() }
