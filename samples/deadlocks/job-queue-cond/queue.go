// Package jobs: a queue guarded by its own mutex with a sync.Cond. Push signals, PushFront (the retry
// path) forgets to, so a worker waiting in Pop sleeps forever with a job queued.
package jobs

import "sync"

type Job struct {
	ID    int
	Retry int
}

type Queue struct {
	closed bool
	items  []Job
	mu     sync.Mutex
	ready  *sync.Cond
	popped int
}

func NewQueue() *Queue {
	q := &Queue{}
	q.ready = sync.NewCond(&q.mu)
	return q
}

func (q *Queue) Push(j Job) {
	q.mu.Lock()
	q.items = append(q.items, j)
	q.mu.Unlock()
	q.ready.Signal()
}

// PushFront requeues a failed job first in line. Missing: q.ready.Signal().
func (q *Queue) PushFront(j Job) {
	q.mu.Lock()
	j.Retry++
	q.items = append([]Job{j}, q.items...)
	q.mu.Unlock()
}

func (q *Queue) Pop() (Job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.ready.Wait() //stuck:pop
	}
	if len(q.items) == 0 {
		return Job{}, false
	}
	j := q.items[0]
	q.items = q.items[1:]
	q.popped++
	return j, true
}
