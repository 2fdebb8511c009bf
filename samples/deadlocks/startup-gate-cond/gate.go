// Package gate: components wait until the gate opens. Open sets the flag but only Broadcasts when a
// listener count says someone registered; the waiters never registered, so they sleep forever.
package gate

import "sync"

type Gate struct {
	name      string
	open      bool
	listeners int
	cond      sync.Cond
	lk        sync.Mutex
}

func NewGate(name string) *Gate {
	g := &Gate{name: name}
	g.cond.L = &g.lk
	return g
}

func awaitOpen(g *Gate, component string) string {
	g.lk.Lock()
	for !g.open {
		g.cond.Wait() //stuck:await
	}
	g.lk.Unlock()
	return component + " started"
}

func (g *Gate) Open() {
	g.lk.Lock()
	g.open = true
	if g.listeners > 0 {
		g.cond.Broadcast()
	}
	g.lk.Unlock()
}

// Boot starts the components; each waits for the gate.
func Boot(g *Gate, components []string) <-chan string {
	out := make(chan string, len(components))
	for _, c := range components {
		go func(c string) { out <- awaitOpen(g, c) }(c)
	}
	return out
}
