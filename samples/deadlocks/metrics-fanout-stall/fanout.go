// Package fanout: a dispatcher hands every recorded sample to each sink's queue with a plain send.
// One sink's exporter holds its lock while it writes to a pipe nobody reads; that sink's drain waits
// for the lock, its queue fills, the dispatcher parks on it, and every recorder waits for the
// dispatcher.
package fanout

import (
	"io"
	"sync"
)

type Exporter struct {
	mu  sync.Mutex
	w   io.Writer
	sum int
}

// Flush writes under the lock: a writer that never drains keeps the lock forever.
func (e *Exporter) Flush(b []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.w.Write(b) //stuck:flush
}

func (e *Exporter) Add(v int) {
	e.mu.Lock() //stuck:add
	e.sum += v
	e.mu.Unlock()
}

type Sink struct {
	queue chan int
	exp   *Exporter
}

func (s *Sink) drain() {
	for v := range s.queue {
		s.exp.Add(v)
	}
}

type Dispatcher struct {
	in    chan int
	sinks []*Sink
}

func NewDispatcher(exps ...*Exporter) *Dispatcher {
	d := &Dispatcher{in: make(chan int)}
	for _, e := range exps {
		s := &Sink{queue: make(chan int, 4), exp: e}
		d.sinks = append(d.sinks, s)
		go s.drain()
	}
	go d.run()
	return d
}

func (d *Dispatcher) run() {
	for v := range d.in {
		for _, s := range d.sinks {
			s.queue <- v //stuck:deliver
		}
	}
}

func (d *Dispatcher) Record(v int) {
	d.in <- v //stuck:record
}
