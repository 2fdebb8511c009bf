// Package server holds the websocket subscription sessions of UI clients.
package server

import (
	"context"
	"runtime/pprof"
	"sync/atomic"

	"example.com/apiproxy/pkg/types"
	"example.com/apiproxy/pkg/watch"
)

// Watcher is a store that can be subscribed to.
type Watcher interface {
	Watch(apiOp *types.APIRequest, schema *types.APISchema, wr types.WatchRequest) (chan watch.Event, error)
}

// Stats counts what all sessions saw.
type Stats struct {
	Stops     atomic.Int64 // resource.stop messages sent to the UI
	Delivered atomic.Int64 // events written to the websocket
}

// Session is one browser tab subscribed to one resource type.
type Session struct {
	User     string
	Resource string
	Kind     string // "names" (restricted user) or "all"
	Store    Watcher
	// StaleResubscribes is how many times the UI re-subscribes with the same
	// stale revision after a resource.stop, before a page reload makes it
	// re-list and subscribe from a fresh revision.
	StaleResubscribes int
	Stats             *Stats
}

// Run subscribes under pprof labels so that every goroutine started for this
// subscription carries them.
func (s *Session) Run(ctx context.Context) {
	labels := pprof.Labels("subscription", s.Kind, "resource", s.Resource)
	go pprof.Do(ctx, labels, func(ctx context.Context) { s.loop(ctx) })
}

func (s *Session) loop(ctx context.Context) {
	revision := "1" // the newest item revision the UI has cached
	for i := 0; ; i++ {
		if i >= s.StaleResubscribes {
			revision = "" // re-listed: subscribe from now
		}
		subCtx, cancel := context.WithCancel(ctx)
		apiOp := &types.APIRequest{Ctx: subCtx, User: s.User, Namespace: "default"}
		c, err := s.Store.Watch(apiOp, &types.APISchema{ID: s.Resource}, types.WatchRequest{Revision: revision})
		if err != nil {
			cancel()
			return
		}
		for range c {
			s.Stats.Delivered.Add(1)
		}
		// The store closed the subscription: tell the UI and cancel the request.
		s.Stats.Stops.Add(1)
		cancel()
	}
}
