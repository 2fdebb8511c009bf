// Driver of an unplanted, real bug (Debian's golang-lru 0.5.4 as shipped; later versions run the
// eviction callback after releasing the lock): a session cache whose eviction callback checks the
// cache again before it closes the evicted session. Cache.Add holds c.lock while simplelru evicts
// and calls the callback, whose Contains takes c.lock again: the goroutine waits for itself.
// Copied into github.com/hashicorp/golang-lru by samples/planted/regenerate.sh.
package lru_test

import (
	"testing"

	lru "github.com/hashicorp/golang-lru"
)

type sessions struct {
	cache  *lru.Cache
	closed []string
}

func newSessions(size int) *sessions {
	s := &sessions{}
	s.cache, _ = lru.NewWithEvict(size, s.evicted)
	return s
}

// evicted closes a session unless it was re-added meanwhile.
func (s *sessions) evicted(key, value interface{}) {
	if s.cache.Contains(key) {
		return
	}
	s.closed = append(s.closed, key.(string))
}

func TestSessionsEvictOldest(t *testing.T) {
	s := newSessions(2)
	for _, id := range []string{"a", "b", "c"} {
		s.cache.Add(id, id)
	}
	if len(s.closed) != 1 {
		t.Fatalf("closed %v", s.closed)
	}
}
