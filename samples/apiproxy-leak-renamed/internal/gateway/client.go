// Package gateway serves long-lived client streams (server-sent events).
package gateway

import (
	"context"
	"strings"
	"sync/atomic"

	"example.org/eventgw/internal/feed"
)

// Counters are shared by all streams.
type Counters struct {
	Reconnects atomic.Int64
	Sent       atomic.Int64
}

// Stream is one connected client.
type Stream struct {
	Hub    *feed.Hub
	Topic  string
	Prefix string // only keys with this prefix (tenant-scoped clients); "" = everything
	// StaleRetries: after its stream ends the client reconnects with its last
	// cursor this many times before it resets to "now".
	StaleRetries int
	C            *Counters
}

// Serve runs the client loop in its own goroutine.
func (s *Stream) Serve(ctx context.Context) {
	go s.serve(ctx)
}

func (s *Stream) serve(ctx context.Context) {
	cursor := int64(7) // last offset the client saw, long truncated
	for attempt := 0; ; attempt++ {
		if attempt >= s.StaleRetries {
			cursor = 0
		}
		sub, cancel := context.WithCancel(ctx)
		var ch <-chan feed.Notification
		if s.Prefix == "" {
			ch = s.Hub.Subscribe(sub, s.Topic, cursor)
		} else {
			ch = s.Hub.SubscribeFiltered(sub, s.Topic, cursor, func(r feed.Record) bool {
				return strings.HasPrefix(r.Key, s.Prefix)
			})
		}
		for range ch {
			s.C.Sent.Add(1)
		}
		cancel()
		s.C.Reconnects.Add(1)
	}
}
