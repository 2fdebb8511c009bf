// live-reload: the reload endpoint of a static-site preview server, on Debian's fsnotify 1.6.0.
// A browser long-polls GET /reload; the handler watches the site directory with a new
// fsnotify.Watcher and answers when a file changes, or returns when the browser goes away (its
// request context). It never closes the watcher: each poll leaves the watcher's goroutine
// (fsnotify.(*Watcher).readEvents, parked reading its inotify descriptor) and the descriptor behind.
// A poll in progress holds its watcher, as it should: only the ended ones leak.
//
//	live-reload server -addr 127.0.0.1:7761 -debug 127.0.0.1:7760 -dir DIR -for 3m
//	live-reload client -addr 127.0.0.1:7761 -workers 4 -n 5 -wait 200ms
package main

import (
	"context"
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

	"github.com/fsnotify/fsnotify"
)

type site struct {
	dir string

	polls, changes, failed int64
}

func (s *site) reload(w http.ResponseWriter, r *http.Request) {
	atomic.AddInt64(&s.polls, 1)
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		atomic.AddInt64(&s.failed, 1)
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if err := watcher.Add(s.dir); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	select {
	case e := <-watcher.Events:
		atomic.AddInt64(&s.changes, 1)
		fmt.Fprintln(w, e.Name)
	case <-r.Context().Done():
	}
}

func server(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7761", "preview address")
	debug := fs.String("debug", "127.0.0.1:7760", "pprof and /stats address")
	dir := fs.String("dir", ".", "the site directory")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	s := &site{dir: *dir}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "polls %d changes %d failed %d\n", atomic.LoadInt64(&s.polls), atomic.LoadInt64(&s.changes), atomic.LoadInt64(&s.failed))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	time.AfterFunc(*life, func() { os.Exit(0) })
	mux := http.NewServeMux()
	mux.HandleFunc("/reload", s.reload)
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// client: workers each long-poll /reload n times, giving up on each poll after -wait (a browser
// navigating away).
func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7761", "preview address")
	workers := fs.Int("workers", 4, "concurrent browsers")
	count := fs.Int("n", 5, "polls per worker")
	wait := fs.Duration("wait", 200*time.Millisecond, "how long a poll waits")
	fs.Parse(args)
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < *count; k++ {
				ctx, cancel := context.WithTimeout(context.Background(), *wait)
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+*addr+"/reload", nil)
				if res, err := http.DefaultClient.Do(req); err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				cancel()
			}
		}()
	}
	wg.Wait()
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: live-reload server|client [flags]")
	}
	switch os.Args[1] {
	case "server":
		server(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: live-reload server|client [flags]")
	}
}
