// Driver of the planted bug: sessions are cached with a short timeout and removed again as
// clients churn, so Remove races the expiry timer (as grpc's TestCacheRetrieveTimeoutRace does).
// When the timer's callback loses the race it returns early, and with the planted patch it keeps
// c.mu locked: every later Add, Remove and expiry waits forever. Copied into
// google.golang.org/grpc/internal/cache by samples/planted/regenerate.sh.
package cache_test

import (
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/internal/cache"
)

func TestSessionChurn(t *testing.T) {
	sessions := cache.NewTimeoutCache(time.Nanosecond)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				key := w<<32 | i
				sessions.Add(key, "session", func() {})
				sessions.Remove(key)
			}
		}(w)
	}
	wg.Wait()
}
