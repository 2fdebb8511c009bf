package agent

import (
	"context"
	"testing"
	"time"
)

// The test passes its check and keeps the process up, loops running, until SIGQUIT.
func TestHeartbeats(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := &Agent{}
	a.Run(ctx)
	for a.beats.Load() < 3 {
		time.Sleep(5 * time.Millisecond)
	}
	t.Log("3 heartbeats")
	time.Sleep(time.Hour)
}
