// Command bundleprog is one "pod" of the support-bundle tests (test/live/bundle.test.ts): it serves
// net/http/pprof on a loopback port, keeps a small pool of healthy workers, and on each
// GET /grow?n=N starts N more goroutines that leak (they block forever receiving from a channel
// nobody sends on), as a leaking handler of a real server would. A pod started with -leak=false
// answers /grow without leaking anything: the healthy process beside the leaking ones.
//
// It prints one line READY {"port":N,"pid":P} on stdout and runs until stdin closes or -lifetime
// passes. Standard library only (Go 1.19).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"strconv"
	"sync"
	"time"
)

var (
	leak     = flag.Bool("leak", true, "GET /grow starts goroutines that never return")
	workers  = flag.Int("workers", 8, "healthy workers waiting for jobs")
	lifetime = flag.Duration("lifetime", 2*time.Minute, "exit after this long")
)

// request stands for a handler's work that waits for a reply that never comes.
type request struct {
	reply chan string
}

// awaitReply is the leak: nothing ever sends on r.reply.
func awaitReply(r *request) {
	<-r.reply // @site awaitReply
}

func worker(jobs <-chan int, wg *sync.WaitGroup) {
	defer wg.Done()
	for range jobs { // @site worker
	}
}

func main() {
	flag.Parse()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go worker(jobs, &wg)
	}
	var mu sync.Mutex
	started := 0
	http.HandleFunc("/grow", func(w http.ResponseWriter, req *http.Request) {
		n, _ := strconv.Atoi(req.URL.Query().Get("n"))
		if *leak {
			for i := 0; i < n; i++ {
				go awaitReply(&request{reply: make(chan string)})
			}
			mu.Lock()
			started += n
			mu.Unlock()
		}
		mu.Lock()
		fmt.Fprintf(w, "%d\n", started)
		mu.Unlock()
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		// The test went away: stop.
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	go func() {
		time.Sleep(*lifetime)
		os.Exit(0)
	}()
	b, _ := json.Marshal(map[string]int{"port": ln.Addr().(*net.TCPAddr).Port, "pid": os.Getpid()})
	fmt.Printf("READY %s\n", b)
	http.Serve(ln, nil)
}
