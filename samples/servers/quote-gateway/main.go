// quote-gateway: an HTTP gateway that answers /quote by asking a backend for a price with
// http.Get, which uses http.DefaultClient: no timeout. When the backend stops answering (here it is
// stopped with SIGSTOP: connections stay open, nothing comes back), every request waits for its
// response forever, and so does the handler that made it.
//
//	quote-gateway backend -addr 127.0.0.1:7631 -for 3m
//	quote-gateway gateway -addr 127.0.0.1:7632 -backend 127.0.0.1:7631 -debug 127.0.0.1:7630 -for 3m
//	quote-gateway client -addr 127.0.0.1:7632 -workers 8 -for 3m
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	_ "net/http/pprof"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

func backend(args []string) {
	fs := flag.NewFlagSet("backend", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7631", "address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	http.HandleFunc("/price", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond)
		fmt.Fprintf(w, "{\"symbol\":%q,\"price\":42}\n", r.URL.Query().Get("symbol"))
	})
	go func() { log.Println(http.ListenAndServe(*addr, nil)) }()
	time.Sleep(*life)
}

type gatewayServer struct {
	backend string
	served  int64
}

func (g *gatewayServer) quote(w http.ResponseWriter, r *http.Request) {
	res, err := http.Get("http://" + g.backend + "/price?symbol=" + r.URL.Query().Get("symbol"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	io.Copy(w, res.Body)
	atomic.AddInt64(&g.served, 1)
}

func gateway(args []string) {
	fs := flag.NewFlagSet("gateway", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7632", "address")
	backendAddr := fs.String("backend", "127.0.0.1:7631", "backend address")
	debug := fs.String("debug", "127.0.0.1:7630", "pprof and /stats address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	g := &gatewayServer{backend: *backendAddr}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "served %d\n", atomic.LoadInt64(&g.served))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	mux := http.NewServeMux()
	mux.HandleFunc("/quote", g.quote)
	go func() { log.Println(http.ListenAndServe(*addr, mux)) }()
	time.Sleep(*life)
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7632", "gateway address")
	workers := fs.Int("workers", 8, "concurrent requests")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	c := &http.Client{Timeout: 10 * time.Minute}
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for {
				res, err := c.Get(fmt.Sprintf("http://%s/quote?symbol=S%d", *addr, i))
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				time.Sleep(20 * time.Millisecond)
			}
		}(i)
	}
	go func() { time.Sleep(*life); os.Exit(0) }()
	wg.Wait()
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: quote-gateway backend|gateway|client [flags]")
	}
	switch os.Args[1] {
	case "backend":
		backend(os.Args[2:])
	case "gateway":
		gateway(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: quote-gateway backend|gateway|client [flags]")
	}
}
