// Package server: Stop waits for the handlers before it closes quit, but every handler loops in a
// select until quit is closed. Wrong shutdown order: close first, then wait.
package server

import (
	"sync"
	"time"
)

type Server struct {
	addr     string
	quit     chan struct{}
	requests chan int
	handlers sync.WaitGroup
}

func Listen(addr string, n int) *Server {
	s := &Server{addr: addr, quit: make(chan struct{}), requests: make(chan int)}
	for i := 0; i < n; i++ {
		s.handlers.Add(1)
		go s.handle(i)
	}
	return s
}

func (s *Server) handle(id int) {
	defer s.handlers.Done()
	idle := time.NewTicker(time.Hour)
	defer idle.Stop()
	for {
		select { //stuck:handler
		case r := <-s.requests:
			_ = r * id
		case <-idle.C:
		case <-s.quit:
			return
		}
	}
}

func (s *Server) Stop() {
	s.handlers.Wait() //stuck:stop
	close(s.quit)
}
