// Command inventory is a small HTTP service: a worker pool prices items,
// a catalog refresher waits on a sync.Cond, metrics tickers flush counters.
//
// This is the no-leak control: after a burst of requests from its own
// keep-alive client, everything is idle in its normal resting place.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"example.com/inventory/internal/cache"
	"example.com/inventory/internal/httpserver"
	"example.com/inventory/internal/loadgen"
	"example.com/inventory/internal/metrics"
	"example.com/inventory/internal/workers"
	"leakscope.local/dumpkit"
)

var (
	poolSize = flag.Int("workers", 16, "pricing workers")
	conns    = flag.Int("conns", 6, "keep-alive client connections")
	rounds   = flag.Int("rounds", 50, "requests per connection")
)

func main() {
	h := dumpkit.Flags()
	ctx := context.Background()
	reg := &metrics.Registry{}
	reg.Run(ctx)
	cat := cache.NewCatalog()
	pool := workers.Start(ctx, "pricing", *poolSize)
	srv := &httpserver.Server{Pool: pool, Catalog: cat, Metrics: reg}
	base, err := srv.Listen()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	client, err := loadgen.Run(base, *conns, *rounds)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
	for deadline := time.Now().Add(3 * time.Second); cat.Version() != 1 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "inventory: %d requests served, catalog v%d\n", reg.Requests.Load(), cat.Version())
	h.Finish()
	_ = client
}
