// A resizer pool started once by its constructor: 12 workers take jobs through a helper (a receive
// inside a call, not at the loop's entry), and a job arrives now and then, so the workers' waits range
// from a minute to the process's uptime. At rest after a few minutes; the program dumps itself with
// SIGQUIT (regenerate.sh).
package main

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

type job struct{ w, h int }

type Pool struct{ jobs chan job }

func NewPool(n int) *Pool {
	p := &Pool{jobs: make(chan job)}
	for i := 0; i < n; i++ {
		go p.worker(i)
	}
	return p
}

func (p *Pool) take() job { return <-p.jobs }

func (p *Pool) worker(id int) {
	for {
		j := p.take()
		_ = j.w * j.h
	}
}

func main() {
	p := NewPool(12)
	// One job a minute: each goes to one idle worker, whose wait starts over. The rest of a real
	// service allocates; here a collection every 20 s stands for it (wait times are stamped at GC).
	tick := time.NewTicker(20 * time.Second)
	defer tick.Stop()
	fmt.Fprintln(os.Stderr, "ready")
	for n := 1; ; n++ {
		<-tick.C
		runtime.GC()
		if n%3 == 0 {
			p.jobs <- job{640, 480}
		}
	}
}
