// Package workers: a fixed pool waiting for jobs on a channel, and a dispatcher in select on the
// incoming queue and its context. At rest; nothing is stuck.
package workers

import (
	"context"
	"sync"
)

type Job func() int

type Pool struct {
	jobs    chan Job
	results chan int
	wg      sync.WaitGroup
}

func StartPool(ctx context.Context, n int) *Pool {
	p := &Pool{jobs: make(chan Job), results: make(chan int, 16)}
	for i := 0; i < n; i++ {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range p.jobs {
				p.results <- j()
			}
		}()
	}
	go func() {
		<-ctx.Done()
		close(p.jobs)
	}()
	return p
}

func (p *Pool) Do(j Job) int {
	p.jobs <- j
	return <-p.results
}
