// Package clustercache simulates informers that see objects come and go.
package clustercache

import (
	"fmt"
	"sync"
	"time"
)

type Handler func(gvk, namespace, state string)

// Cache dispatches informer events to handlers.
type Cache struct {
	mu       sync.Mutex
	onAdd    []Handler
	onRemove []Handler
}

func New() *Cache { return &Cache{} }

func (c *Cache) OnAdd(h Handler)    { c.mu.Lock(); c.onAdd = append(c.onAdd, h); c.mu.Unlock() }
func (c *Cache) OnRemove(h Handler) { c.mu.Lock(); c.onRemove = append(c.onRemove, h); c.mu.Unlock() }

// Run starts one informer goroutine per type; each adds and removes objects
// across many namespaces.
func (c *Cache) Run(types []string, namespaces int) {
	for _, gvk := range types {
		go c.informer(gvk, namespaces)
	}
}

var states = []string{"active", "in-progress", "error", "removing"}

func (c *Cache) informer(gvk string, namespaces int) {
	for i := 0; ; i++ {
		ns := fmt.Sprintf("ns-%03d", i%namespaces)
		st := states[i%len(states)]
		c.mu.Lock()
		hs := c.onAdd
		if i%3 == 2 {
			hs = c.onRemove
		}
		c.mu.Unlock()
		for _, h := range hs {
			h(gvk, ns, st)
		}
		if i%64 == 0 {
			time.Sleep(50 * time.Microsecond)
		}
	}
}
