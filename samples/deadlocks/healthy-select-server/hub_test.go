package hub

import (
	"context"
	"testing"
	"time"
)

func TestHubServes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := NewHub()
	go h.Run(ctx)
	h.register <- "ana"
	h.register <- "ben"
	h.messages <- "hello"
	time.Sleep(time.Hour)
}
