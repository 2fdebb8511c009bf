// event-stream: a server-sent events (SSE) feed. Publishers POST events to /publish; one broker
// goroutine hands each event to every subscriber's queue (16 events); each subscriber's handler
// (GET /events) writes its queue to its client and flushes.
//
// Everything waits with the request's context, the way the idiom goes: the broker delivers with
// select { case sub.queue <- e: case <-sub.done: }, publishers hand over with
// select { case b.publish <- e: case <-r.Context().Done(): }. But a client that stops reading without
// hanging up cancels nothing: its handler blocks in Flush (no write deadline) and never returns, so
// its done channel stays open, its queue fills, the broker waits on it, and every publisher waits for
// the broker.
//
//	event-stream server -addr 127.0.0.1:7741 -debug 127.0.0.1:7740 -sndbuf 16384 -for 3m
//	event-stream subscribe -addr 127.0.0.1:7741 -conns 4 -for 3m
//	event-stream publish -addr 127.0.0.1:7741 -workers 6 -for 3m
//
// -sndbuf sets the server's per-connection socket send buffer and subscribe's -rcvbuf the client's
// receive buffer (0: the kernel's defaults, which on loopback absorb megabytes before a writer blocks).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ---- the server role ----

type subscriber struct {
	queue chan []byte
	done  chan struct{} // closed when its handler returns
}

type broker struct {
	publish chan []byte
	join    chan *subscriber
	leave   chan *subscriber

	published, delivered int64
}

// run hands every published event to every subscriber's queue.
func (b *broker) run() {
	subs := map[*subscriber]bool{}
	for {
		select {
		case s := <-b.join:
			subs[s] = true
		case s := <-b.leave:
			delete(subs, s)
		case e := <-b.publish:
			for s := range subs {
				select {
				case s.queue <- e:
					atomic.AddInt64(&b.delivered, 1)
				case <-s.done:
				}
			}
		}
	}
}

func (b *broker) events(w http.ResponseWriter, r *http.Request) {
	flusher := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	s := &subscriber{queue: make(chan []byte, 16), done: make(chan struct{})}
	defer close(s.done)
	b.join <- s
	defer func() { b.leave <- s }()
	for {
		select {
		case e := <-s.queue:
			fmt.Fprintf(w, "data: %s\n\n", e)
			flusher.Flush()
		case <-r.Context().Done():
			return
		}
	}
}

func (b *broker) publishEvent(w http.ResponseWriter, r *http.Request) {
	e, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case b.publish <- e:
		atomic.AddInt64(&b.published, 1)
		w.WriteHeader(http.StatusAccepted)
	case <-r.Context().Done():
	}
}

// smallBuffers sets each accepted connection's socket send buffer.
type smallBuffers struct {
	net.Listener
	size int
}

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil && l.size > 0 {
		c.(*net.TCPConn).SetWriteBuffer(l.size)
	}
	return c, err
}

func server(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7741", "feed address")
	debug := fs.String("debug", "127.0.0.1:7740", "pprof and /stats address")
	sndbuf := fs.Int("sndbuf", 0, "per-connection socket send buffer (0: the kernel's default)")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	b := &broker{publish: make(chan []byte), join: make(chan *subscriber), leave: make(chan *subscriber)}
	go b.run()
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "published %d delivered %d\n", atomic.LoadInt64(&b.published), atomic.LoadInt64(&b.delivered))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	time.AfterFunc(*life, func() { os.Exit(0) })
	mux := http.NewServeMux()
	mux.HandleFunc("/events", b.events)
	mux.HandleFunc("/publish", b.publishEvent)
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.Serve(smallBuffers{l, *sndbuf}))
}

// ---- the subscribe role: connections reading the feed ----

func subscribe(args []string) {
	fs := flag.NewFlagSet("subscribe", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7741", "feed address")
	conns := fs.Int("conns", 4, "connections")
	rcvbuf := fs.Int("rcvbuf", 0, "socket receive buffer (0: the kernel's default)")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	dialer := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		if *rcvbuf > 0 {
			c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, *rcvbuf) })
		}
		return nil
	}}
	client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	var got int64
	var wg sync.WaitGroup
	for i := 0; i < *conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := client.Get("http://" + *addr + "/events")
			if err != nil {
				log.Println(err)
				return
			}
			defer res.Body.Close()
			sc := bufio.NewScanner(res.Body)
			sc.Buffer(make([]byte, 64<<10), 64<<10)
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "data: ") {
					atomic.AddInt64(&got, 1)
				}
			}
		}()
	}
	time.AfterFunc(*life, func() { os.Exit(0) })
	wg.Wait()
}

// ---- the publish role: workers posting events ----

func publish(args []string) {
	fs := flag.NewFlagSet("publish", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7741", "feed address")
	workers := fs.Int("workers", 6, "concurrent publishers")
	size := fs.Int("size", 4096, "bytes per event")
	pause := fs.Duration("pause", 10*time.Millisecond, "pause between a worker's events")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	deadline := time.Now().Add(*life)
	body := bytes.Repeat([]byte("x"), *size)
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				res, err := http.Post("http://"+*addr+"/publish", "text/plain", bytes.NewReader(body))
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				time.Sleep(*pause)
			}
		}()
	}
	wg.Wait()
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: event-stream server|subscribe|publish [flags]")
	}
	switch os.Args[1] {
	case "server":
		server(os.Args[2:])
	case "subscribe":
		subscribe(os.Args[2:])
	case "publish":
		publish(os.Args[2:])
	default:
		log.Fatal("usage: event-stream server|subscribe|publish [flags]")
	}
}
