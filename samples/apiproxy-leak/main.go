// Command apiproxy is a trimmed-down Kubernetes API proxy: UI sessions
// subscribe to resource types over a websocket, admins through the plain
// proxy watch, restricted users through WatchNames.
//
// This run reproduces a goroutine leak: the upstream history is compacted,
// so every restricted subscription from a stale revision ends with two ERROR
// events. WatchNames returns on the first one without draining, and the
// watcher loop parks forever in returnErr on the second one; errgroup.Wait
// in listAndWatch waits for it forever.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"example.com/apiproxy/pkg/server"
	"example.com/apiproxy/pkg/stores/proxy"
	"example.com/apiproxy/pkg/upstream"
	"leakscope.local/dumpkit"
)

var (
	restricted   = flag.Int("restricted-sessions", 60, "UI sessions of users that may only see some names")
	admins       = flag.Int("admin-sessions", 20, "UI sessions of admins")
	resubscribes = flag.Int("stale-resubscribes", 5, "re-subscriptions with a stale revision per restricted session")
)

var resources = []string{"pods", "secrets", "configmaps", "services"}

func main() {
	h := dumpkit.Flags()

	client := upstream.NewClient(100)
	store := proxy.NewProxyStore(client)
	stats := &server.Stats{}
	ctx := context.Background()

	for i := 0; i < *admins; i++ {
		s := &server.Session{
			User: fmt.Sprintf("admin-%d", i), Resource: resources[i%len(resources)], Kind: "all",
			Store: proxy.NewRBACStore(store, proxy.Partition{Passthrough: true}), Stats: stats,
		}
		s.Run(ctx)
	}
	for i := 0; i < *restricted; i++ {
		res := resources[i%len(resources)]
		names := proxy.Names{res + "-0": {}, res + "-2": {}}
		s := &server.Session{
			User: fmt.Sprintf("user-%d", i), Resource: res, Kind: "names",
			Store:             proxy.NewRBACStore(store, proxy.Partition{Names: names}),
			StaleResubscribes: *resubscribes, Stats: stats,
		}
		s.Run(ctx)
	}

	// Every stale subscription ends with one resource.stop; the fresh ones
	// deliver 3 events (admins) or 2 visible names (restricted) and stay up.
	wantStops := int64(*restricted * *resubscribes)
	wantDelivered := int64(*admins*3 + *restricted*2*(*resubscribes+1))
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if stats.Stops.Load() == wantStops && stats.Delivered.Load() == wantDelivered {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "apiproxy: %d resource.stop, %d events delivered\n", stats.Stops.Load(), stats.Delivered.Load())
	h.Finish()
}
