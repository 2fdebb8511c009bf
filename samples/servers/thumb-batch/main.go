// thumb-batch: an HTTP service that makes the thumbnails of a batch of images, /batch?ids=a,b,c,...
// The handler runs one task per id in a golang.org/x/sync/errgroup limited to 4 at a time
// (g.SetLimit(4)); each task renders its thumbnail and hands the result to a collector goroutine over
// an unbuffered channel. The collector stores the thumbnails, but returns at the first failed result
// (an id that cannot be rendered: one starting with "bad") without draining the channel. From then on
// every running task blocks sending its result (nobody receives), the group's 4 slots are never given
// back, and the handler blocks in g.Go waiting for a free slot (the group's semaphore, a channel send
// inside (*Group).Go): it never reaches g.Wait, and it does not look at its context while it waits.
//
//	thumb-batch server -addr 127.0.0.1:7711 -debug 127.0.0.1:7710 -for 3m
//	thumb-batch client -addr 127.0.0.1:7711 -workers 4 -ids 8 -for 3m
package main

import (
	"context"
	"errors"
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

	"golang.org/x/sync/errgroup"
)

type thumbResult struct {
	id   string
	data []byte
	err  error
}

type thumbService struct {
	batches, thumbs, failed, inflight int64
}

// render makes one thumbnail: a few milliseconds of work; an id starting with "bad" names an image
// that cannot be decoded, and fails at once.
func render(id string) ([]byte, error) {
	if strings.HasPrefix(id, "bad") {
		return nil, errors.New("cannot decode image " + id)
	}
	time.Sleep(5 * time.Millisecond)
	return []byte("<thumb " + id + ">"), nil
}

// renderTask is one task of the group: it skips the work when the request is gone, renders, and
// hands its result (a failure too) to the collector.
func (s *thumbService) renderTask(ctx context.Context, id string, results chan<- thumbResult) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := render(id)
	results <- thumbResult{id: id, data: data, err: err}
	return nil
}

// collectThumbs stores each rendered thumbnail in thumbs. The bug: at the first failed result it
// reports the failure and returns, leaving the results channel unread.
func collectThumbs(results <-chan thumbResult, thumbs map[string][]byte, done chan<- error) {
	for r := range results {
		if r.err != nil {
			done <- r.err
			return
		}
		thumbs[r.id] = r.data
	}
	done <- nil
}

func (s *thumbService) serveBatch(w http.ResponseWriter, r *http.Request) {
	atomic.AddInt64(&s.inflight, 1)
	defer atomic.AddInt64(&s.inflight, -1)
	ids := strings.Split(r.URL.Query().Get("ids"), ",")
	results := make(chan thumbResult)
	thumbs := make(map[string][]byte, len(ids))
	done := make(chan error, 1)
	go collectThumbs(results, thumbs, done)

	g, ctx := errgroup.WithContext(r.Context())
	g.SetLimit(4)
	for _, id := range ids {
		id := id
		g.Go(func() error { return s.renderTask(ctx, id, results) })
	}
	err := g.Wait()
	close(results)
	if cerr := <-done; cerr != nil {
		atomic.AddInt64(&s.failed, 1)
		http.Error(w, cerr.Error(), http.StatusUnprocessableEntity)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, "{\"thumbs\":%d}\n", len(thumbs))
	atomic.AddInt64(&s.batches, 1)
	atomic.AddInt64(&s.thumbs, int64(len(thumbs)))
}

func server(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7711", "address")
	debug := fs.String("debug", "127.0.0.1:7710", "pprof and /stats address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	s := &thumbService{}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "batches %d thumbs %d failed %d inflight %d\n", atomic.LoadInt64(&s.batches),
			atomic.LoadInt64(&s.thumbs), atomic.LoadInt64(&s.failed), atomic.LoadInt64(&s.inflight))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	mux := http.NewServeMux()
	mux.HandleFunc("/batch", s.serveBatch)
	go func() { log.Println(http.ListenAndServe(*addr, mux)) }()
	time.Sleep(*life)
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7711", "server address")
	workers := fs.Int("workers", 4, "concurrent batches")
	n := fs.Int("ids", 8, "ids per batch")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	c := &http.Client{Timeout: 10 * time.Minute}
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for k := 0; ; k++ {
				ids := make([]string, *n)
				for j := range ids {
					ids[j] = fmt.Sprintf("img-%d-%d-%d", i, k, j)
				}
				res, err := c.Post(fmt.Sprintf("http://%s/batch?ids=%s", *addr, strings.Join(ids, ",")), "text/plain", nil)
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
		log.Fatal("usage: thumb-batch server|client [flags]")
	}
	switch os.Args[1] {
	case "server":
		server(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: thumb-batch server|client [flags]")
	}
}
