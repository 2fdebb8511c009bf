// Package service: Shutdown holds s.mu while it waits for the workers; each worker takes s.mu to
// record its final count before it calls Done.
package service

import (
	"context"
	"sync"
	"time"
)

type Service struct {
	name    string
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	handled map[int]int
}

func Start(name string, workers int) *Service {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service{name: name, cancel: cancel, handled: map[int]int{}}
	for i := 0; i < workers; i++ {
		s.wg.Add(1)
		go s.loop(ctx, i)
	}
	return s
}

func (s *Service) loop(ctx context.Context, id int) {
	defer s.wg.Done()
	n := 0
	for {
		select {
		case <-ctx.Done():
			s.mu.Lock() //stuck:worker
			s.handled[id] = n
			s.mu.Unlock()
			return
		case <-time.After(5 * time.Millisecond):
			n++
		}
	}
}

func (s *Service) Shutdown() map[int]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancel()
	s.wg.Wait() //stuck:shutdown
	return s.handled
}
