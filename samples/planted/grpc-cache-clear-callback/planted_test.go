// Driver of the planted bug: a balancer keeps its idle connections in a TimeoutCache whose
// callback re-registers the connection for a retry. Clear(true) runs the callbacks; with the
// planted patch it runs them while it still holds c.mu, so the callback's Add waits for the lock
// its own goroutine holds. Copied into google.golang.org/grpc/internal/cache by
// samples/planted/regenerate.sh.
package cache_test

import (
	"testing"
	"time"

	"google.golang.org/grpc/internal/cache"
)

type idleConns struct {
	c *cache.TimeoutCache
}

func (p *idleConns) park(addr string) {
	var retry func()
	retry = func() { p.c.Add(addr, "retry", retry) }
	p.c.Add(addr, "idle", retry)
}

func TestResetRetriesIdle(t *testing.T) {
	p := &idleConns{c: cache.NewTimeoutCache(time.Hour)}
	for _, a := range []string{"10.0.0.1:443", "10.0.0.2:443"} {
		p.park(a)
	}
	p.c.Clear(true)
}
