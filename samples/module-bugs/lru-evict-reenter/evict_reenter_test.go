package lru

import "testing"

// A write-back cache flushes what it evicts unless the key was added again meanwhile, and asks the
// cache from its eviction callback. golang-lru 0.5.4 calls onEvicted from simplelru while Cache.Add
// still holds c.lock: Contains' RLock waits for the goroutine's own write lock.
func TestEvictCallbackConsultsCache(t *testing.T) {
	var c *Cache
	flushed := 0
	c, _ = NewWithEvict(2, func(key, value interface{}) {
		if c.Contains(key) {
			return
		}
		flushed++
	})
	for i := 0; i < 3; i++ {
		c.Add(i, i)
	}
	if flushed != 1 {
		t.Fatalf("flushed %d entries, want 1", flushed)
	}
}
