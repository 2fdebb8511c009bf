// Command quotes is a soak test of a small quote service: it serves /quote on
// 127.0.0.1 under load from its own clients for about ten seconds and, while
// the load runs, writes a series of goroutine snapshots into series/.
//
// The handler waits for its lookup goroutine with a timeout. Lookups of cold
// SKUs are slower than the timeout; the handler gives up, and the lookup
// goroutine then blocks forever sending on the unbuffered result channel
// (internal/quote/service.go:47). The leak grows with the traffic.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"example.com/quotes/internal/loadgen"
	"example.com/quotes/internal/quote"
	"example.com/quotes/internal/soak"
	"leakscope.local/dumpkit"
)

const (
	caseName = "soak-leak"
	leaky    = true
)

var (
	out      = flag.String("out", ".", "the case folder: series/ and expected.json are written there")
	verify   = flag.Bool("verify", false, "only re-check the written series against <out>/expected.json")
	n        = flag.Int("snapshots", 12, "snapshots to take")
	interval = flag.Duration("interval", 800*time.Millisecond, "time between snapshots")
	debug0At = flag.String("debug0", "2,5,8", "snapshot indexes written as debug=0 protobuf")
)

func main() {
	flag.Parse()
	if *verify {
		if err := soak.Verify(filepath.Join(*out, "expected.json")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "%s: series verified\n", caseName)
		return
	}
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", caseName, err)
		os.Exit(1)
	}
}

func run() error {
	svc := &quote.Service{Backend: &quote.Backend{Upstream: 250 * time.Millisecond}, Timeout: 40 * time.Millisecond}
	mux := http.NewServeMux()
	mux.Handle("/quote", svc)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	load := loadgen.Start(ctx, "http://"+ln.Addr().String(), loadgen.Options{
		Steady: 6, Pause: 4 * time.Millisecond, ColdEvery: 25, Batches: 3, BurstGap: 300 * time.Millisecond,
	})

	rec := &soak.Recorder{
		Dir:      filepath.Join(*out, "series"),
		Groups:   groups(),
		LeakID:   "lookupSend",
		Requests: load.Sent.Load,
		Leaked: func() int64 {
			if leaky {
				return svc.Abandoned()
			}
			return 0
		},
	}
	if err := rec.Reset(); err != nil {
		return err
	}
	pb := map[int]bool{}
	for _, s := range splitInts(*debug0At) {
		pb[s] = true
	}
	start := time.Now()
	tick := time.NewTicker(*interval)
	defer tick.Stop()
	for i := 0; i < *n; i++ {
		<-tick.C
		debug := 1
		if pb[i] {
			debug = 0
		}
		if err := rec.Take(debug); err != nil {
			return fmt.Errorf("snapshot %d: %w", i, err)
		}
	}
	elapsed := time.Since(start)
	stop()
	exp := expected(rec)
	if err := soak.WriteExpected(filepath.Join(*out, "expected.json"), exp); err != nil {
		return err
	}
	last := rec.Taken[len(rec.Taken)-1]
	fmt.Fprintf(os.Stderr, "%s: %d snapshots in %v, %d requests (%d cold, %d errors), %d served, %d abandoned; last total %d, leaked %d\n",
		caseName, len(rec.Taken), elapsed.Round(time.Millisecond), load.Sent.Load(), load.Cold.Load(), load.Errors.Load(),
		svc.Served(), svc.Abandoned(), last.Total, last.Leaked)
	return nil
}

// The series groups: identifying frame of each kind of goroutine the service
// has (first match wins; line 0 = any line of that function).
func groups() []dumpkit.Group {
	role := "leak-root"
	if !leaky {
		role = "healthy"
	}
	return []dumpkit.Group{
		{ID: "lookupSend", Role: role, Function: "example.com/quotes/internal/quote.(*Service).lookup", File: "internal/quote/service.go", Line: 47, State: "chan send"},
		{ID: "upstreamWait", Role: "healthy", Function: "example.com/quotes/internal/quote.(*Backend).Price", File: "internal/quote/backend.go", Line: 22, State: "select"},
		{ID: "handlerWait", Role: "healthy", Function: "example.com/quotes/internal/quote.(*Service).ServeHTTP", File: "internal/quote/service.go", Line: 34, State: "select"},
		{ID: "serverConn", Role: "healthy", Function: "net/http.(*conn).serve", File: "net/http/server.go", Line: 0},
		{ID: "serverBackgroundRead", Role: "healthy", Function: "net/http.(*connReader).backgroundRead", File: "net/http/server.go", Line: 0},
		{ID: "clientReadLoop", Role: "healthy", Function: "net/http.(*persistConn).readLoop", File: "net/http/transport.go", Line: 0},
		{ID: "clientWriteLoop", Role: "healthy", Function: "net/http.(*persistConn).writeLoop", File: "net/http/transport.go", Line: 0},
		{ID: "accept", Role: "healthy", Function: "net/http.(*Server).Serve", File: "net/http/server.go", Line: 0},
		{ID: "loadgen", Role: "load", Function: "example.com/quotes/internal/loadgen.Start.func1", File: "internal/loadgen/load.go", Line: 0},
	}
}

func expected(rec *soak.Recorder) *soak.Expected {
	e := &soak.Expected{
		Schema: "leakscope-sample/v1", Case: caseName, Go: "go1.19.8", Files: []string{},
		Series: soak.Series{Folder: "series", IntervalMs: interval.Milliseconds(), Groups: rec.Groups, Snapshots: rec.Taken},
	}
	last := rec.Taken[len(rec.Taken)-1]
	if leaky {
		e.Verdict = "leak"
		e.Leak = &dumpkit.Leak{Root: dumpkit.FrameRef{
			Group: "lookupSend", Function: "example.com/quotes/internal/quote.(*Service).lookup", File: "internal/quote/service.go", Line: 47,
			State: "chan send", Count: int(last.Leaked),
			Note: "count at the last snapshot; series.snapshots[].leaked has it per snapshot (the service's own count of abandoned requests)",
		}}
		e.Notes = "Soak test of a quote service under load (6 keep-alive callers, bursts of 3 callers on fresh connections, every 25th request of a caller for a cold SKU). The handler (service.go:34) waits for its lookup goroutine or 40 ms; cold lookups take longer, the handler answers 504 and returns, and the lookup goroutine blocks forever on `result <- q` (service.go:47, unbuffered channel). Each snapshot holds exactly series.snapshots[].leaked goroutines at service.go:47 (the program retries the capture until its parse agrees with the service's counter). leakscope should conclude: leak, rooted at service.go:47, growing steadily with traffic; everything else fluctuates with the load."
	} else {
		e.Verdict = "no-leak"
		e.Notes = "The same soak test with the fix (`make(chan Quote, 1)`: the lookup can always deliver and exit). Goroutine counts move with the load: in-flight handlers (service.go:34), cold lookups waiting upstream (backend.go:22), server and client connections that come and go with the bursts. Nothing accumulates: no goroutine is ever blocked at service.go:47 in a snapshot. leakscope should conclude: no leak."
	}
	return e
}

func splitInts(s string) []int {
	var out []int
	for _, part := range strings.Split(s, ",") {
		var v int
		if _, err := fmt.Sscanf(part, "%d", &v); err == nil {
			out = append(out, v)
		}
	}
	return out
}
