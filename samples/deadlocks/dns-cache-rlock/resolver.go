// Package resolver: a closure-based cache. resolve read-locks the embedded RWMutex and, on a stale
// entry, calls ttlOf, which read-locks it again; expire() in another goroutine queued a Lock between.
package resolver

import (
	"sync"
	"time"
)

type Resolver struct {
	hits int
	*sync.RWMutex
	records map[string]record
}

type record struct {
	addr    string
	expires time.Time
}

func New() *Resolver {
	return &Resolver{RWMutex: new(sync.RWMutex), records: map[string]record{"db.internal": {"10.0.0.7", time.Now()}}}
}

// Start returns the resolve and expire functions the service wires up. Not inlined: Go 1.22+ names
// the closures of an inlined function after its caller (TestResolveStale.Start.func2), Go 1.19 does
// not (Start.func1); the samples keep one name for both toolchains.
//
//go:noinline
func Start(r *Resolver, pause time.Duration) (resolve func(string) string, expire func()) {
	ttlOf := func(host string) time.Duration {
		r.RLock() //stuck:ttl
		defer r.RUnlock()
		return time.Until(r.records[host].expires)
	}
	resolve = func(host string) string {
		r.RLock()
		defer r.RUnlock()
		rec := r.records[host]
		time.Sleep(pause)
		if ttlOf(host) <= 0 {
			return ""
		}
		return rec.addr
	}
	expire = func() {
		r.Lock() //stuck:expire
		defer r.Unlock()
		for h, rec := range r.records {
			if time.Now().After(rec.expires) {
				delete(r.records, h)
			}
		}
	}
	return resolve, expire
}
