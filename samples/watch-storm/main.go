// Command uiwatch replays a watch re-subscription storm: every open tab
// re-subscribes to every resource type with a resourceVersion that is always
// too old, so each watch ends at once and is immediately re-opened.
//
// The storm runs freely for a bounded number of requests; then the server
// holds new watches (like an overloaded apiserver) and the dump is taken
// when every subscription has one request in flight.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"example.com/uiwatch/internal/apiserver"
	"example.com/uiwatch/internal/dashboard"
	"leakscope.local/dumpkit"
)

var (
	tabs     = flag.Int("tabs", 4, "open browser tabs")
	types    = flag.Int("types", 30, "resource types each tab watches")
	requests = flag.Int64("storm-requests", 20000, "watch requests to let through before freezing")
)

func main() {
	h := dumpkit.Flags()
	srv := &apiserver.Server{Compacted: 5000}
	base, err := srv.Listen()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stats := &dashboard.Stats{}
	ctx := context.Background()
	subs := *tabs * *types
	for t := 0; t < *tabs; t++ {
		// one connection per tab and type, as a browser websocket would have
		for i := 0; i < *types; i++ {
			client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}}
			(&dashboard.Subscription{Base: base, Type: fmt.Sprintf("type%02d", i), Client: client, Stats: stats}).Start(ctx)
		}
	}
	start := time.Now()
	for srv.Watches.Load() < *requests && time.Since(start) < 4*time.Second {
		time.Sleep(5 * time.Millisecond)
	}
	srv.Hold()
	for srv.Holding.Load() != int64(subs) && time.Since(start) < 6*time.Second {
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "uiwatch: %d watches (%d too old) in %v from %d subscriptions, %d held\n",
		srv.Watches.Load(), srv.TooOld.Load(), time.Since(start).Round(time.Millisecond), subs, srv.Holding.Load())
	h.Finish()
}
