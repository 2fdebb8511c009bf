// Command eventgw streams event-log topics to clients. Tenant-scoped clients
// get a filtered subscription.
//
// This run reproduces the same leak as apiproxy-leak with other names: a
// truncated log makes every stale tail end with two failures; the filtered
// subscription stops reading on the first one (it is not a Record), and the
// tail pump parks forever in pushFailure on the second; hub.open waits for
// it in sync.WaitGroup.Wait.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"example.org/eventgw/internal/backend"
	"example.org/eventgw/internal/feed"
	"example.org/eventgw/internal/gateway"
	"leakscope.local/dumpkit"
)

var (
	tenants = flag.Int("tenant-clients", 50, "filtered (tenant-scoped) clients")
	plain   = flag.Int("plain-clients", 10, "unfiltered clients")
	retries = flag.Int("stale-retries", 5, "reconnects with a stale cursor per client")
)

var topics = []string{"orders", "invoices", "shipments"}

func main() {
	h := dumpkit.Flags()
	hub := feed.NewHub(backend.NewLog(1000, 900))
	c := &gateway.Counters{}
	ctx := context.Background()
	for i := 0; i < *plain; i++ {
		(&gateway.Stream{Hub: hub, Topic: topics[i%len(topics)], C: c}).Serve(ctx)
	}
	for i := 0; i < *tenants; i++ {
		t := topics[i%len(topics)]
		(&gateway.Stream{Hub: hub, Topic: t, Prefix: t + "/key-1", StaleRetries: *retries, C: c}).Serve(ctx)
	}
	// Stale tails: 4 records (1 passes the filter) then 2 failures; fresh
	// tails: 4 records, then they stay open.
	wantReconnects := int64(*tenants * *retries)
	wantSent := int64(*plain*4 + *tenants*(*retries+1))
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if c.Reconnects.Load() == wantReconnects && c.Sent.Load() == wantSent {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "eventgw: %d reconnects, %d sent\n", c.Reconnects.Load(), c.Sent.Load())
	h.Finish()
}
