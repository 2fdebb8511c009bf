// Package workers is a fixed-size pool that prices inventory items.
package workers

import (
	"context"
	"runtime/pprof"
	"sync"
)

// Job is one unit of work with its reply channel.
type Job struct {
	SKU   string
	Reply chan<- int
}

// Pool runs a fixed number of workers reading from one jobs channel.
type Pool struct {
	jobs chan Job
	wg   sync.WaitGroup
}

// Start launches n workers labeled pool=<name>.
func Start(ctx context.Context, name string, n int) *Pool {
	p := &Pool{jobs: make(chan Job)}
	pprof.Do(ctx, pprof.Labels("pool", name), func(ctx context.Context) {
		for i := 0; i < n; i++ {
			p.wg.Add(1)
			go p.worker(ctx)
		}
	})
	return p
}

// Submit hands a job to an idle worker.
func (p *Pool) Submit(j Job) { p.jobs <- j }

// Close stops the workers.
func (p *Pool) Close() { close(p.jobs); p.wg.Wait() }

func (p *Pool) worker(ctx context.Context) {
	defer p.wg.Done()
	for job := range p.jobs {
		price := 0
		for _, c := range job.SKU {
			price += int(c)
		}
		job.Reply <- price
	}
}
