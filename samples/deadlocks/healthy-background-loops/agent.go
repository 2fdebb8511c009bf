// Package agent: background loops that belong to a running process: a ticker loop stopped by its
// context and a signal.Notify loop waiting for SIGHUP.
package agent

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

type Agent struct {
	beats   atomic.Int64
	reloads atomic.Int64
}

func (a *Agent) Run(ctx context.Context) {
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				a.beats.Add(1)
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
		for {
			select {
			case <-hup:
				a.reloads.Add(1)
			case <-ctx.Done():
				return
			}
		}
	}()
}
