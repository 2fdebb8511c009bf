// Command catalog is a healthy, busy HTTP service and client in one process: a burst of 168
// requests opened 168 keep-alive connections (bounded by the Transport's pool), and 48 searches are
// in flight on 48 of them while the other 120 sit idle. Every response body is read and closed.
//
// This is a no-leak control for the connection rules: a few hundred pooled connections in one
// snapshot are normal for a busy client.
package main

import (
	"flag"
	"fmt"
	"os"

	"example.com/catalog/internal/api"
	"example.com/catalog/internal/fanout"
	"leakscope.local/dumpkit"
)

var (
	burst    = flag.Int("burst", 168, "concurrent requests of the burst (connections opened)")
	inflight = flag.Int("inflight", 48, "searches in flight when the dump is taken")
)

func main() {
	h := dumpkit.Flags()
	srv := &api.Server{Burst: *burst, Backend: make(chan struct{})}
	base, err := srv.Listen()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c := fanout.New()
	if err := c.Burst(base+"/item", *burst); err != nil {
		fmt.Fprintln(os.Stderr, "burst:", err)
		os.Exit(1)
	}
	srv.Waiting.Add(*inflight)
	for i := 0; i < *inflight; i++ {
		go c.Search(base + "/search")
	}
	srv.Waiting.Wait()
	h.Finish()
	close(srv.Backend)
}
