// Package hub: a small server: an accept-like loop, a janitor and two session goroutines, each in a
// select that also watches ctx.Done().
package hub

import (
	"context"
	"time"
)

type Hub struct {
	register chan string
	messages chan string
	sessions map[string]chan string
}

func NewHub() *Hub {
	return &Hub{register: make(chan string), messages: make(chan string), sessions: map[string]chan string{}}
}

func (h *Hub) Run(ctx context.Context) {
	go h.janitor(ctx)
	for {
		select {
		case name := <-h.register:
			ch := make(chan string, 4)
			h.sessions[name] = ch
			go session(ctx, name, ch)
		case m := <-h.messages:
			for _, ch := range h.sessions {
				select {
				case ch <- m:
				default:
				}
			}
		case <-ctx.Done():
			return
		}
	}
}

func (h *Hub) janitor(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
	}
}

func session(ctx context.Context, name string, in <-chan string) {
	for {
		select {
		case m := <-in:
			_ = name + m
		case <-ctx.Done():
			return
		}
	}
}
