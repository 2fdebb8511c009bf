package groupcache

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// A getter behind an origin fetcher that stopped: the group's getter hands each miss to one fetcher
// goroutine over an unbuffered channel and waits for its reply, but the fetcher returns on its first
// error without draining the channel. The next miss's send blocks forever, and groupcache's
// singleflight makes every other Get of the same key wait for that call (c.wg.Wait in
// singleflight.(*Group).Do): one leader per key stuck in the getter, the rest parked behind it.

type fetch struct {
	key   string
	reply chan fetchResult
}

type fetchResult struct {
	value []byte
	err   error
}

type origin struct{ requests chan fetch }

// serve answers the getter's requests from the origin's records, one at a time.
func (o *origin) serve(records map[string]string) {
	for f := range o.requests {
		v, ok := records[f.key]
		if !ok {
			f.reply <- fetchResult{err: fmt.Errorf("origin: no record %q", f.key)}
			return // the bug: gives up serving while the getter still sends to o.requests
		}
		f.reply <- fetchResult{value: []byte(v)}
	}
}

// get is the group's getter: a cache miss asks the fetcher and waits for its reply.
func (o *origin) get(ctx context.Context, key string, dest Sink) error {
	reply := make(chan fetchResult, 1)
	o.requests <- fetch{key, reply}
	r := <-reply
	if r.err != nil {
		return r.err
	}
	return dest.SetBytes(r.value)
}

func TestGetterBehindStoppedFetcher(t *testing.T) {
	o := &origin{requests: make(chan fetch)}
	go o.serve(map[string]string{"user:1": "ada", "user:2": "grace", "user:3": "barbara"})
	g := NewGroup("profiles", 1<<20, GetterFunc(o.get))
	ctx := context.Background()

	var name string
	if err := g.Get(ctx, "user:404", StringSink(&name)); err == nil { // a lookup of a deleted user
		t.Fatal("want the origin's error")
	}
	// A burst of lookups of three users: one load per key reaches the getter, the others share it.
	var wg sync.WaitGroup
	for i := 0; i < 24; i++ {
		wg.Add(1)
		go func(key string) {
			defer wg.Done()
			var name string
			g.Get(ctx, key, StringSink(&name))
		}(fmt.Sprintf("user:%d", i%3+1))
	}
	wg.Wait()
}
