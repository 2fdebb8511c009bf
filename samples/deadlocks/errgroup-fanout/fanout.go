// Package fanout: a hand-written errgroup. The first failing task cancels the group, and Wait
// returns only after every task; a task blocked sending its result (nobody reads after the failure,
// the collector returned on the first error) keeps Wait waiting forever.
package fanout

import (
	"context"
	"errors"
	"sync"
	"time"
)

type group struct {
	cancel  func()
	wg      sync.WaitGroup
	errOnce sync.Once
	err     error
}

func withContext(ctx context.Context) (*group, context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	return &group{cancel: cancel}, ctx
}

func (g *group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(); err != nil {
			g.errOnce.Do(func() {
				g.err = err
				g.cancel()
			})
		}
	}()
}

func (g *group) Wait() error {
	g.wg.Wait() //stuck:wait
	g.cancel()
	return g.err
}

var errShard = errors.New("shard 0 unavailable")

// Sum queries every shard; results go to an unbuffered channel read by a collector that stops at
// the first error.
func Sum(ctx context.Context, shards []int) (int, error) {
	g, ctx := withContext(ctx)
	vals := make(chan int)
	for _, s := range shards {
		s := s
		g.Go(func() error {
			if s == 0 {
				return errShard
			}
			time.Sleep(20 * time.Millisecond) // the remote call
			vals <- s * 10                    //stuck:send
			return nil
		})
	}
	total := 0
	go func() {
		for {
			select {
			case v := <-vals:
				total += v
			case <-ctx.Done():
				return
			}
		}
	}()
	err := g.Wait()
	return total, err
}
