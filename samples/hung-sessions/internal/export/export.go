// Package export runs the daemon's export pool, started by its constructor.
package export

// Pool is a fixed set of export workers.
type Pool struct{ jobs chan string }

// NewPool starts n workers that wait for export requests.
func NewPool(n int) *Pool {
	p := &Pool{jobs: make(chan string)}
	for i := 0; i < n; i++ {
		go p.work()
	}
	return p
}

func (p *Pool) work() {
	for name := range p.jobs {
		_ = name
	}
}
