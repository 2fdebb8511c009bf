// Package dispatch holds the distinct stack shapes of the benchmark dump: a path through eight
// stage methods spells each shape, so every shape has its own stack, 10-25 frames deep, with names
// and argument lists as long as those of real services.
package dispatch

import (
	"net"
	"sync"
	"time"
)

// Blocking primitives shared by all parked goroutines: they never wake.
var (
	sendCh = make(chan int)
	recvCh = make(chan int)
	mu     sync.Mutex
	rw     sync.RWMutex
	wg     sync.WaitGroup
	cond   = sync.NewCond(&sync.Mutex{})
	// Conns are the client ends of loopback connections whose readers park in IO wait. The server
	// ends are kept reachable in Peers so that no finalizer closes them.
	Conns   []net.Conn
	Peers   []net.Conn
	Started sync.WaitGroup
)

// Hold takes the locks and the WaitGroup count that parked goroutines wait on.
func Hold() {
	mu.Lock()
	rw.Lock()
	wg.Add(1)
}

type Pipeline struct {
	Route string
	Shape int
	Depth int
	// Wide spells the path with three bits of Shape per level (six levels), so that every shape
	// below 2^18 has its own stack: thousands of distinct stacks for the rules benchmark.
	Wide bool
}

const nKinds = 9

// park blocks forever in the way the shape says.
func (p *Pipeline) park(shape int) {
	Started.Done()
	switch shape % nKinds {
	case 0:
		sendCh <- shape
	case 1:
		<-recvCh
	case 2:
		select {
		case <-recvCh:
		case sendCh <- shape:
		}
	case 3:
		mu.Lock()
	case 4:
		rw.RLock()
	case 5:
		wg.Wait()
	case 6:
		cond.L.Lock()
		cond.Wait()
	case 7:
		time.Sleep(24 * time.Hour)
	case 8:
		buf := make([]byte, 1)
		Conns[shape%len(Conns)].Read(buf)
	}
}

//go:noinline
func (p *Pipeline) stageAdmission(i int) { p.step(i) }

//go:noinline
func (p *Pipeline) stageAuthorization(i int) { p.step(i) }

//go:noinline
func (p *Pipeline) stageRateLimiting(i int) { p.step(i) }

//go:noinline
func (p *Pipeline) stageDecoding(i int) { p.step(i) }

//go:noinline
func (p *Pipeline) stageValidation(i int) { p.step(i) }

//go:noinline
func (p *Pipeline) stageRouting(i int) { p.step(i) }

//go:noinline
func (p *Pipeline) stageFanout(i int) { p.step(i) }

//go:noinline
func (p *Pipeline) stageDelivery(i int) { p.step(i) }

func (p *Pipeline) step(i int) {
	if i >= p.Depth {
		p.park(p.Shape)
		return
	}
	choice := (p.Shape>>(uint(i)%6) + i) % 8
	if p.Wide {
		choice = (p.Shape >> (3 * uint(i))) & 7
	}
	switch choice {
	case 0:
		p.stageAdmission(i + 1)
	case 1:
		p.stageAuthorization(i + 1)
	case 2:
		p.stageRateLimiting(i + 1)
	case 3:
		p.stageDecoding(i + 1)
	case 4:
		p.stageValidation(i + 1)
	case 5:
		p.stageRouting(i + 1)
	case 6:
		p.stageFanout(i + 1)
	default:
		p.stageDelivery(i + 1)
	}
}

// Run parks the calling goroutine along the shape's path: 2 frames per level, 4-9 levels, so
// stacks are 11-21 frames deep with park, Run and the go statement's function.
func (p *Pipeline) Run() {
	p.Depth = 4 + p.Shape%6
	if p.Wide {
		p.Depth = 6
	}
	p.step(0)
}
