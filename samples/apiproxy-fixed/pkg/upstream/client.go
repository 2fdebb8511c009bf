// Package upstream is an in-process stand-in for the Kubernetes API server
// watch endpoint: it replays a scripted event stream per resource type.
package upstream

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"example.com/apiproxy/pkg/watch"
)

// Client opens watches against the (simulated) upstream API server.
type Client struct {
	mu sync.Mutex
	// compactedBelow: history before this revision was compacted. A watch
	// from an older revision gets "too old resource version" and the stream
	// then breaks with a decode error, like a real StreamWatcher.
	compactedBelow int
	rev            int
}

func NewClient(compactedBelow int) *Client {
	return &Client{compactedBelow: compactedBelow, rev: compactedBelow}
}

type ListOptions struct {
	Watch           bool
	TimeoutSeconds  *int64
	ResourceVersion string
}

// Watch starts a stream watcher. The stream is buffered like the decoder's
// read-ahead, so events already received stay queued after Stop.
func (c *Client) Watch(ctx context.Context, resource string, opts ListOptions) (watch.Interface, error) {
	c.mu.Lock()
	compacted := false
	if rv, err := strconv.Atoi(opts.ResourceVersion); err == nil && rv < c.compactedBelow {
		compacted = true
	}
	c.rev += 10
	rev := c.rev
	c.mu.Unlock()

	var events []watch.Event
	for i := 0; i < 3; i++ {
		events = append(events, watch.Event{Type: watch.Added, Object: &watch.Unstructured{
			Kind: resource, Name: fmt.Sprintf("%s-%d", resource, i), Namespace: "default",
			ResourceVersion: fmt.Sprint(rev + i),
		}})
	}
	if compacted {
		events = append(events,
			watch.Event{Type: watch.Error, Object: &watch.Status{Code: 410, Reason: "Expired",
				Message: fmt.Sprintf("too old resource version: %s (%d)", opts.ResourceVersion, rev)}},
			watch.Event{Type: watch.Error, Object: &watch.Status{Code: 500, Reason: "InternalError",
				Message: "unable to decode an event from the watch stream: stream error: stream ID 7; INTERNAL_ERROR"}},
		)
	}
	sw := &StreamWatcher{result: make(chan watch.Event, len(events)), done: make(chan struct{})}
	go sw.receive(events, compacted)
	return sw, nil
}

// StreamWatcher is one open upstream watch.
type StreamWatcher struct {
	result chan watch.Event
	done   chan struct{}
	once   sync.Once
}

func (sw *StreamWatcher) ResultChan() <-chan watch.Event { return sw.result }

func (sw *StreamWatcher) Stop() { sw.once.Do(func() { close(sw.done) }) }

func (sw *StreamWatcher) receive(events []watch.Event, broken bool) {
	defer close(sw.result)
	for _, e := range events {
		sw.result <- e // buffered: never blocks
	}
	if broken {
		return // the server ended the watch after the errors
	}
	<-sw.done // the connection stays open until Stop
}
