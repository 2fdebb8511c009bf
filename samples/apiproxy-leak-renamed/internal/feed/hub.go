package feed

import (
	"context"
	"fmt"
	"sync"

	"example.org/eventgw/internal/backend"
)

// Hub opens subscriptions on the event log.
type Hub struct {
	log *backend.Log
}

func NewHub(l *backend.Log) *Hub { return &Hub{log: l} }

// pushFailure reports a tail failure to the subscriber.
//
//go:noinline
func pushFailure(cause error, out chan<- Notification) {
	out <- Notification{Kind: KindFailure, Payload: &Fault{Text: cause.Error()}}
}

// pump copies one tail into out until the tail ends.
func (h *Hub) pump(ctx context.Context, topic string, cursor int64, out chan<- Notification) {
	tail, err := h.log.Tail(ctx, topic, cursor)
	if err != nil {
		pushFailure(fmt.Errorf("open tail %s: %w", topic, err), out)
		return
	}
	defer tail.Close()

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for msg := range tail.Messages() {
			if msg.Failed() {
				pushFailure(msg.Err, out)
				continue
			}
			out <- Notification{Kind: KindRecord, Payload: Record{Offset: msg.Offset, Key: msg.Key, Body: msg.Body}}
		}
	}()
	go func() {
		<-ctx.Done()
		tail.Close()
	}()
	wg.Wait()
}

func (h *Hub) open(ctx context.Context, topic string, cursor int64) <-chan Notification {
	out := make(chan Notification)
	go func() {
		h.pump(ctx, topic, cursor, out)
		close(out)
	}()
	return out
}

// Subscribe delivers every notification of topic, failures included.
func (h *Hub) Subscribe(ctx context.Context, topic string, cursor int64) <-chan Notification {
	return h.open(ctx, topic, cursor)
}
