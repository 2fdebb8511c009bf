// Package cache keeps the catalog snapshot and refreshes it when invalidated.
package cache

import (
	"sync"
)

// Catalog is refreshed by one background goroutine waiting on a sync.Cond.
type Catalog struct {
	mu      sync.Mutex
	cond    *sync.Cond
	dirty   bool
	closed  bool
	version int
	items   map[string]int
}

func NewCatalog() *Catalog {
	c := &Catalog{items: map[string]int{}}
	c.cond = sync.NewCond(&c.mu)
	go c.refresher()
	return c
}

// Invalidate asks the refresher to rebuild the snapshot.
func (c *Catalog) Invalidate() {
	c.mu.Lock()
	c.dirty = true
	c.mu.Unlock()
	c.cond.Signal()
}

// Version is the number of refreshes so far.
func (c *Catalog) Version() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// Lookup reads one item under the lock.
func (c *Catalog) Lookup(sku string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.items[sku]
	return v, ok
}

func (c *Catalog) refresher() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for !c.dirty && !c.closed {
			c.cond.Wait()
		}
		if c.closed {
			return
		}
		c.dirty = false
		c.version++
		c.items["sku-1"] = c.version
	}
}
