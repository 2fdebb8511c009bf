// Command fetchgw is a small gateway that leaks fetchers through an early return
// (internal/fetch.FirstAnswer), beside goroutines that wait but are not leaked: an idle worker pool
// and an audit backlog, both on package-level channels (reachable, so the leak-detecting GC cannot
// and must not call them leaked). It serves net/http/pprof, including /debug/pprof/goroutineleak
// (build with GOEXPERIMENT=goroutineleakprofile, Go 1.26+), and /more?n=N, which serves N more
// lookups and returns once their leaked goroutines are parked.
//
// It prints `READY <addr>` once the first wave is parked; regenerate.sh then fetches the profiles.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"example.com/fetchgw/internal/fetch"
)

var (
	jobs     = make(chan string)      // served by the worker pool; a package-level channel
	auditLog = make(chan string)      // drained by a slow auditor; a package-level channel
	served   atomic.Int64             // lookups served
)

func worker() {
	for j := range jobs {
		_ = j
	}
}

func auditor() {
	for range auditLog {
		time.Sleep(time.Hour) // a slow sink: the backlog waits, but the channel is reachable
	}
}

func audit(msg string) {
	auditLog <- msg
}

func serve(g *fetch.Gateway, n int) {
	for i := 0; i < n; i++ {
		_, _ = g.FirstAnswer("user/" + strconv.FormatInt(served.Add(1), 10))
	}
}

// settle waits until the goroutine count is exactly want (every fetcher parked).
func settle(want int) error {
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() != want {
		if time.Now().After(deadline) {
			return fmt.Errorf("%d goroutines, want %d", runtime.NumGoroutine(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

func main() {
	workers := flag.Int("workers", 8, "idle pool workers")
	backlog := flag.Int("backlog", 60, "goroutines waiting to hand a line to the auditor")
	first := flag.Int("requests", 20, "lookups of the first wave")
	flag.Parse()

	g := &fetch.Gateway{Replicas: []string{"r1", "r2", "r3", "r4"}, Latency: 5 * time.Millisecond, Failing: "r2"}
	for i := 0; i < *workers; i++ {
		go worker()
	}
	go auditor()
	auditLog <- "start" // the auditor is now asleep
	for i := 0; i < *backlog; i++ {
		go audit("line " + strconv.Itoa(i))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// per lookup: len(Replicas)-1 stuck senders and one stuck closer
	perLookup := len(g.Replicas)
	base := 1 + *workers + 1 + *backlog
	serve(g, *first)
	if err := settle(base + perLookup**first); err != nil {
		fmt.Fprintln(os.Stderr, "first wave:", err)
		os.Exit(1)
	}
	http.HandleFunc("/more", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		serve(g, n)
		// The other replicas answer after Latency and only then block in their send: give them time.
		time.Sleep(40*g.Latency + 100*time.Millisecond)
		fmt.Fprintf(w, "served %d\n", served.Load())
	})
	fmt.Printf("READY %s\n", ln.Addr())
	fmt.Fprintln(os.Stderr, http.Serve(ln, nil))
	os.Exit(1)
}
