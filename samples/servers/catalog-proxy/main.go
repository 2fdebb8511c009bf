// catalog-proxy: an HTTP API that answers GET /item?id=ID by asking an upstream catalog service,
// through one shared http.Client whose transport allows 4 connections per host
// (&http.Transport{MaxConnsPerHost: 4}: polite to the upstream). There is no Client.Timeout, and the
// upstream request carries no context: waiting for a connection never gives up.
//
// The upstream answers 200 with a small JSON for a known item and 404 with a short text body for an
// unknown one. On a non-200 answer the handler returns a 502 before its deferred res.Body.Close() is
// set up, neither reading nor closing the body: the connection's readLoop waits for that body to be
// read (or closed) forever, so the connection is neither reused nor closed. Each such answer keeps
// one of the 4 connections; after 4 of them every later upstream request waits in
// (*Transport).getConn for a connection that is never given back, and so does every handler.
//
//	catalog-proxy upstream -addr 127.0.0.1:7682 -for 3m
//	catalog-proxy proxy -addr 127.0.0.1:7681 -upstream 127.0.0.1:7682 -debug 127.0.0.1:7680 -for 3m
//	catalog-proxy client -addr 127.0.0.1:7681 -workers 8 -for 3m
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	_ "net/http/pprof"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

type item struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Price int    `json:"price"`
}

// known: the catalog's items (ids 100..107); any other id is unknown.
var known = []item{
	{"100", "kettle", 35}, {"101", "teapot", 22}, {"102", "mug", 6}, {"103", "grinder", 48},
	{"104", "scale", 19}, {"105", "filter", 4}, {"106", "dripper", 15}, {"107", "canister", 12},
}

// ---- the upstream role: the catalog ----

func upstream(args []string) {
	fs := flag.NewFlagSet("upstream", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7682", "address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	items := map[string]item{}
	for _, it := range known {
		items[it.ID] = it
	}
	http.HandleFunc("/item", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Millisecond)
		id := r.URL.Query().Get("id")
		it, ok := items[id]
		if !ok {
			// a body that is not empty: the client's transport waits for it to be read
			http.Error(w, fmt.Sprintf("no item %q in the catalog", id), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(it)
	})
	go func() { log.Println(http.ListenAndServe(*addr, nil)) }()
	time.Sleep(*life)
}

// ---- the proxy role: the API ----

type proxy struct {
	client   *http.Client
	upstream string
	served   int64
	failed   int64
}

func (p *proxy) item(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	res, err := p.client.Get("http://" + p.upstream + "/item?id=" + url.QueryEscape(id)) // waits for one of the 4 connections, with no timeout
	if err != nil {
		atomic.AddInt64(&p.failed, 1)
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if res.StatusCode != http.StatusOK {
		atomic.AddInt64(&p.failed, 1)
		http.Error(w, fmt.Sprintf("upstream answered %s for item %q", res.Status, id), http.StatusBadGateway)
		return // res.Body is neither read nor closed: its connection is never given back
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		atomic.AddInt64(&p.failed, 1)
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	var it item
	if err := json.Unmarshal(body, &it); err != nil {
		atomic.AddInt64(&p.failed, 1)
		http.Error(w, "bad item from upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	atomic.AddInt64(&p.served, 1)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(it)
}

func proxyServer(args []string) {
	fs := flag.NewFlagSet("proxy", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7681", "API address")
	upstreamAddr := fs.String("upstream", "127.0.0.1:7682", "upstream catalog address")
	debug := fs.String("debug", "127.0.0.1:7680", "pprof and /stats address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	p := &proxy{
		client:   &http.Client{Transport: &http.Transport{MaxConnsPerHost: 4}},
		upstream: *upstreamAddr,
	}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "served %d failed %d\n", atomic.LoadInt64(&p.served), atomic.LoadInt64(&p.failed))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	mux := http.NewServeMux()
	mux.HandleFunc("/item", p.item)
	go func() { log.Println(http.ListenAndServe(*addr, mux)) }()
	time.Sleep(*life)
}

// client: workers each GET a known item (100..107) in a loop, with a 10-minute client timeout.
func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7681", "API address")
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
				res, err := c.Get(fmt.Sprintf("http://%s/item?id=%s", *addr, known[i%len(known)].ID))
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
		log.Fatal("usage: catalog-proxy upstream|proxy|client [flags]")
	}
	switch os.Args[1] {
	case "upstream":
		upstream(os.Args[2:])
	case "proxy":
		proxyServer(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: catalog-proxy upstream|proxy|client [flags]")
	}
}
