// Package workerpool: each worker handles a task and enqueues its follow-up tasks into the pool's own
// bounded queue. Once the queue is full every worker is blocked in that send and nobody drains it.
package workerpool

import "sync"

type Task struct {
	Path  string
	Depth int
}

type Pool struct {
	queue   chan Task
	workers int
	wg      sync.WaitGroup
	pending sync.WaitGroup
}

func NewPool(workers, queueSize int) *Pool {
	return &Pool{queue: make(chan Task, queueSize), workers: workers}
}

func (p *Pool) Submit(t Task) {
	p.pending.Add(1)
	p.queue <- t //stuck:submit
}

func (p *Pool) Start(expand func(Task) []Task) {
	for i := 0; i < p.workers; i++ {
		p.wg.Add(1)
		go p.run(expand)
	}
}

func (p *Pool) run(expand func(Task) []Task) {
	defer p.wg.Done()
	for t := range p.queue {
		for _, child := range expand(t) {
			p.Submit(child)
		}
		p.pending.Done()
	}
}

// Drain waits until every submitted task was handled, then stops the workers.
func (p *Pool) Drain() {
	p.pending.Wait() //stuck:drain
	close(p.queue)
	p.wg.Wait()
}
