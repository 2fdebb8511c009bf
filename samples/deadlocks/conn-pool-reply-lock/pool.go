// Package pool: Acquire holds the pool lock while it waits for the dialer's reply; the dialer must
// record the new connection under the same lock before it replies.
package pool

import "sync"

type Conn struct{ ID int }

type Pool struct {
	max     int
	open    int
	idle    []*Conn
	mtx     sync.Mutex
	dialReq chan chan *Conn
}

func NewPool(max int) *Pool {
	p := &Pool{max: max, dialReq: make(chan chan *Conn)}
	go dialer(p)
	return p
}

func dialer(p *Pool) {
	for reply := range p.dialReq {
		p.mtx.Lock() //stuck:dialer
		p.open++
		c := &Conn{ID: p.open}
		p.mtx.Unlock()
		reply <- c
	}
}

func (p *Pool) Acquire() *Conn {
	p.mtx.Lock()
	defer p.mtx.Unlock()
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		return c
	}
	reply := make(chan *Conn)
	p.dialReq <- reply
	return <-reply //stuck:acquire
}
