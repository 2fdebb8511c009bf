// Driver of the planted bug: subchannel state updates go through an Unbounded buffer to a
// watcher loop that hands each update to a handler behind an interface; the handler calls Load, as
// grpc's balancer wrappers do after each receive. With the planted patch Put sends on b.c while it
// holds b.mu: when the channel is full, Put waits for the reader, and the reader waits in Load for
// b.mu. Copied into google.golang.org/grpc/internal/buffer by samples/planted/regenerate.sh.
package buffer_test

import (
	"testing"

	"google.golang.org/grpc/internal/buffer"
)

type updateHandler interface {
	handle(update interface{})
}

type stateUpdater struct {
	buf  *buffer.Unbounded
	seen int
}

func (s *stateUpdater) handle(update interface{}) {
	s.buf.Load()
	s.seen++
}

func watch(buf *buffer.Unbounded, h updateHandler, done chan<- struct{}) {
	for u := range buf.Get() {
		if u == nil {
			close(done)
			return
		}
		h.handle(u)
	}
}

func TestUpdatesReachWatcher(t *testing.T) {
	buf := buffer.NewUnbounded()
	done := make(chan struct{})
	go watch(buf, &stateUpdater{buf: buf}, done)
	for i := 1; i <= 1000; i++ {
		buf.Put(i)
	}
	buf.Put(nil)
	<-done
}
