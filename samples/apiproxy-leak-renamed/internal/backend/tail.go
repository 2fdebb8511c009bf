// Package backend tails topics of the event log service.
package backend

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrCursorExpired is returned when the requested cursor was truncated from the log.
var ErrCursorExpired = errors.New("cursor expired: log truncated")

// Message is one entry of a tail, or a failure of the tail.
type Message struct {
	Offset int64
	Key    string
	Body   []byte
	Err    error
}

func (m Message) Failed() bool { return m.Err != nil }

// Log is the (in-process) event log.
type Log struct {
	mu        sync.Mutex
	head      int64
	truncated int64 // offsets below this are gone
}

func NewLog(head, truncated int64) *Log { return &Log{head: head, truncated: truncated} }

// Tail streams a topic from cursor (0 = from now).
func (l *Log) Tail(ctx context.Context, topic string, cursor int64) (*Tail, error) {
	l.mu.Lock()
	head, expired := l.head, cursor != 0 && cursor < l.truncated
	l.head += 4
	l.mu.Unlock()

	var msgs []Message
	for i := int64(0); i < 4; i++ {
		msgs = append(msgs, Message{Offset: head + i, Key: fmt.Sprintf("%s/key-%d", topic, i), Body: []byte(`{"v":1}`)})
	}
	if expired {
		msgs = append(msgs,
			Message{Err: fmt.Errorf("tail %s from %d: %w", topic, cursor, ErrCursorExpired)},
			Message{Err: fmt.Errorf("tail %s: connection reset by peer", topic)})
	}
	t := &Tail{out: make(chan Message, len(msgs)), closed: make(chan struct{})}
	go t.run(ctx, msgs, expired)
	return t, nil
}

// Tail is one open tail of a topic.
type Tail struct {
	out    chan Message
	closed chan struct{}
	once   sync.Once
}

func (t *Tail) Messages() <-chan Message { return t.out }
func (t *Tail) Close()                   { t.once.Do(func() { close(t.closed) }) }

func (t *Tail) run(ctx context.Context, msgs []Message, broken bool) {
	defer close(t.out)
	for _, m := range msgs {
		t.out <- m
	}
	if broken {
		return
	}
	select {
	case <-t.closed:
	case <-ctx.Done():
	}
}
