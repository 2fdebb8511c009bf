// Package batch runs import batches, one goroutine per item.
package batch

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var ErrInvalid = errors.New("invalid item")

type Item struct {
	Batch, N int
	Payload  string
}

type Batch struct {
	ID    int
	Items []Item
}

// Runner runs batches and counts outcomes.
type Runner struct {
	Started   atomic.Int64
	Finished  atomic.Int64
	Processed atomic.Int64
	Rejected  atomic.Int64
}

func validate(it Item) error {
	if it.Payload == "" {
		return fmt.Errorf("batch %d item %d: %w", it.Batch, it.N, ErrInvalid)
	}
	return nil
}

// RunBatch processes every item concurrently and waits for all of them.
// BUG: an item that fails validation returns without wg.Done, so Wait
// never returns for that batch.
func (r *Runner) RunBatch(b Batch) error {
	r.Started.Add(1)
	var wg sync.WaitGroup
	errs := make(chan error, len(b.Items))
	for _, it := range b.Items {
		wg.Add(1)
		go func(it Item) {
			if err := validate(it); err != nil {
				r.Rejected.Add(1)
				errs <- err
				return
			}
			r.Processed.Add(1)
			wg.Done()
		}(it)
	}
	wg.Wait()
	close(errs)
	r.Finished.Add(1)
	return <-errs
}

// Scheduler runs the queued batches every interval (healthy loop).
func (r *Runner) Scheduler(queue <-chan Batch, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case b, ok := <-queue:
			if !ok {
				return
			}
			go r.RunBatch(b)
		case <-t.C:
		}
	}
}
