// avatar-cache: an HTTP cache in front of an origin. A miss loads the avatar from the origin once per
// user, however many requests ask for it at the same time: golang.org/x/sync/singleflight makes the
// first request (the leader) fetch it and every other request for that user wait for the leader's
// result. The origin is asked with http.Get, which uses http.DefaultClient: no timeout. When the
// origin stops answering (here it is stopped with SIGSTOP: connections stay open, nothing comes back),
// each user's leader waits for its response forever, and every request for that user waits behind it
// in singleflight's Do, which no caller can cancel.
//
//	avatar-cache origin -addr 127.0.0.1:7642 -for 3m
//	avatar-cache cache -addr 127.0.0.1:7641 -origin 127.0.0.1:7642 -debug 127.0.0.1:7640 -for 3m [-chan]
//	avatar-cache client -addr 127.0.0.1:7641 -workers 16 -users 4 -for 3m
//
// With -chan the cache waits with DoChan and a select on the request's context instead, as
// singleflight's documentation suggests for callers that must be able to give up: a request whose
// client goes away leaves, but the load it joined still waits for the origin, and so does every
// request that stays.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	_ "net/http/pprof"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
)

func origin(args []string) {
	fs := flag.NewFlagSet("origin", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7642", "address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	http.HandleFunc("/avatar/", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(40 * time.Millisecond)
		user := strings.TrimPrefix(r.URL.Path, "/avatar/")
		w.Header().Set("Content-Type", "image/svg+xml")
		fmt.Fprintf(w, "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>%s</text></svg>\n", user)
	})
	go func() { log.Println(http.ListenAndServe(*addr, nil)) }()
	time.Sleep(*life)
}

type entry struct {
	data    []byte
	fetched time.Time
}

type avatarCache struct {
	origin string
	ttl    time.Duration

	mu      sync.Mutex
	entries map[string]entry
	loads   singleflight.Group

	useChan bool

	served, fetched int64
}

// get answers from the cache while the entry is fresh; otherwise one caller per user fetches it from
// the origin and the others wait for that fetch.
func (c *avatarCache) get(user string) ([]byte, error) {
	c.mu.Lock()
	e, ok := c.entries[user]
	c.mu.Unlock()
	if ok && time.Since(e.fetched) < c.ttl {
		return e.data, nil
	}
	v, err, _ := c.loads.Do(user, func() (interface{}, error) {
		return c.fetch(user)
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

// load is get, or getChan with -chan.
func (c *avatarCache) load(ctx context.Context, user string) ([]byte, error) {
	if c.useChan {
		return c.getChan(ctx, user)
	}
	return c.get(user)
}

// getChan is get waiting with DoChan: the caller gives up when its context is done.
func (c *avatarCache) getChan(ctx context.Context, user string) ([]byte, error) {
	c.mu.Lock()
	e, ok := c.entries[user]
	c.mu.Unlock()
	if ok && time.Since(e.fetched) < c.ttl {
		return e.data, nil
	}
	ch := c.loads.DoChan(user, func() (interface{}, error) {
		return c.fetch(user)
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.([]byte), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *avatarCache) fetch(user string) ([]byte, error) {
	res, err := http.Get("http://" + c.origin + "/avatar/" + user)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("origin: %s", res.Status)
	}
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.entries[user] = entry{data: data, fetched: time.Now()}
	c.mu.Unlock()
	atomic.AddInt64(&c.fetched, 1)
	return data, nil
}

func (c *avatarCache) serveAvatar(w http.ResponseWriter, r *http.Request) {
	data, err := c.load(r.Context(), r.URL.Query().Get("user"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	io.Copy(w, bytes.NewReader(data))
	atomic.AddInt64(&c.served, 1)
}

func cache(args []string) {
	fs := flag.NewFlagSet("cache", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7641", "address")
	originAddr := fs.String("origin", "127.0.0.1:7642", "origin address")
	debug := fs.String("debug", "127.0.0.1:7640", "pprof and /stats address")
	ttl := fs.Duration("ttl", 100*time.Millisecond, "how long an avatar stays fresh")
	useChan := fs.Bool("chan", false, "wait with DoChan and the request's context")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	c := &avatarCache{origin: *originAddr, ttl: *ttl, entries: map[string]entry{}, useChan: *useChan}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "served %d fetched %d\n", atomic.LoadInt64(&c.served), atomic.LoadInt64(&c.fetched))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	mux := http.NewServeMux()
	mux.HandleFunc("/avatar", c.serveAvatar)
	go func() { log.Println(http.ListenAndServe(*addr, mux)) }()
	time.Sleep(*life)
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7641", "cache address")
	workers := fs.Int("workers", 16, "concurrent requests")
	users := fs.Int("users", 4, "distinct users asked for")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	c := &http.Client{Timeout: 10 * time.Minute}
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for {
				res, err := c.Get(fmt.Sprintf("http://%s/avatar?user=u%d", *addr, i%*users))
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				time.Sleep(10 * time.Millisecond)
			}
		}(i)
	}
	go func() { time.Sleep(*life); os.Exit(0) }()
	wg.Wait()
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: avatar-cache origin|cache|client [flags]")
	}
	switch os.Args[1] {
	case "origin":
		origin(os.Args[2:])
	case "cache":
		cache(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: avatar-cache origin|cache|client [flags]")
	}
}
