// Command quotehub is a quote fan-out daemon with two independent leaks: beside a large set of
// stuck goroutines, a second, smaller set (about an eighth of the dump) that a report must not
// drop.
//
//  1. feed: 200 subscribers, 31 of whose clients disconnect after their first quote. Their readers
//     return without unsubscribing, so each of the other 200 of the 201 published quotes leaves one
//     deliver goroutine per gone subscriber blocked in a send: 31 × 200 = 6,200 at
//     feed.(*Hub).deliver.
//  2. archive: 960 time buckets, rolled over one after the other and the last one closed; neither
//     Roll nor Close closes a dropped bucket's channel, so 960 sealers wait in a receive forever at
//     archive.(*Bucket).seal.
//
// Background: the 169 live subscribers' readers, a pricing pool of 160 workers, 64 venue keepalive
// loops, 3 gauges, and main writing the dumps.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"example.com/quotehub/internal/archive"
	"example.com/quotehub/internal/background"
	"example.com/quotehub/internal/feed"
	"leakscope.local/dumpkit"
)

var (
	subscribers = flag.Int("subscribers", 200, "subscribers of the hub")
	gone        = flag.Int("gone", 31, "subscribers whose client disconnects after its first quote")
	quotes      = flag.Int("quotes", 201, "quotes published")
	windows     = flag.Int("windows", 960, "archive buckets opened, rolled over and closed")
	workers     = flag.Int("workers", 160, "pricing pool workers")
	venues      = flag.Int("venues", 64, "venue keepalive loops")
	gauges      = flag.Int("gauges", 3, "gauge loops")
)

func main() {
	h := dumpkit.Flags()
	var started atomic.Int64
	stop := make(chan struct{})
	pool := background.NewPool(*workers)
	for i := 0; i < *venues; i++ {
		go background.Keepalive(i, 30*time.Second, stop, &started)
	}
	for i := 0; i < *gauges; i++ {
		go background.Gauge(fmt.Sprintf("gauge-%d", i), time.Minute, &started)
	}

	var hub feed.Hub
	subs := make([]*feed.Subscriber, *subscribers)
	for i := range subs {
		subs[i] = hub.Subscribe(i)
		leaves := i < *gone
		go subs[i].Read(func(feed.Quote) bool { return leaves })
	}

	var store archive.Store
	store.Open(0)
	for w := 1; w < *windows; w++ {
		store.Roll(w)
	}
	store.Close()

	for q := 0; q < *quotes; q++ {
		hub.Publish(feed.Quote{Symbol: fmt.Sprintf("SYM%03d", q%50), Price: 100 + q})
	}

	// Wait until every live subscriber has read every quote and the gone ones their first.
	want := int64(*subscribers-*gone)*int64(*quotes) + int64(*gone)
	var got int64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		got = 0
		for _, s := range subs {
			got += s.Received.Load()
		}
		if got == want && pool.Started.Load() == int64(*workers) && started.Load() == int64(*venues+*gauges) {
			break
		}
	}
	fmt.Fprintf(os.Stderr, "quotehub: %d of %d quotes read, %d sealers\n", got, want, store.Opened.Load())
	h.Finish()
	close(stop)
}
