// Package queue runs jobs on a fixed set of workers.
package queue

import "sync"

// Queue runs submitted jobs on n workers and publishes results.
type Queue struct {
	jobs    chan func() int
	Results chan int
	wg      sync.WaitGroup
}

func New(workers int) *Queue {
	q := &Queue{jobs: make(chan func() int), Results: make(chan int)}
	for i := 0; i < workers; i++ {
		q.wg.Add(1)
		go q.worker()
	}
	return q
}

func (q *Queue) worker() {
	defer q.wg.Done()
	for job := range q.jobs {
		q.Results <- job()
	}
}

// Submit queues one job.
func (q *Queue) Submit(job func() int) { q.jobs <- job }

// Drain stops accepting jobs and waits for the workers to finish.
func (q *Queue) Drain() {
	close(q.jobs)
	q.wg.Wait()
}
