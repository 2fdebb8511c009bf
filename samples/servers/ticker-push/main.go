// ticker-push: a price-ticker push server. Subscribers connect over TCP and say "SUB"; from then on
// every tick of every instrument is pushed to them as one line of a few hundred bytes. Each of the 12
// instrument feeds runs in its own goroutine and, on every tick, writes the line to every subscriber
// in turn by calling the subscriber's send directly: a mutex per subscriber serializes the feeds'
// writes to its connection, through a bufio.Writer, flushed per tick, without a write deadline.
//
// A subscriber that stops reading fills its socket; the feed writing to it blocks in the Flush while
// holding the subscriber's mutex, and every other feed that reaches that subscriber waits for the
// mutex. Since each feed pushes to every subscriber in turn, the feeds stop for the subscribers that
// still read as well.
//
// -sndbuf sets each subscriber connection's socket send buffer (SO_SNDBUF; the kernel doubles it)
// so that a stopped subscriber's socket fills within seconds; 0 leaves the kernel's autotuning.
//
//	ticker-push server -addr 127.0.0.1:7701 -debug 127.0.0.1:7700 -every 20ms -sndbuf 16384 -for 3m
//	ticker-push client -addr 127.0.0.1:7701 -conns 4 -for 3m
package main

import (
	"bufio"
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
	"time"
)

var instruments = []string{
	"EURUSD", "GBPUSD", "USDJPY", "AUDUSD", "USDCHF", "USDCAD",
	"NZDUSD", "EURGBP", "EURJPY", "XAUUSD", "BTCUSD", "ETHUSD",
}

type subscriber struct {
	mu   sync.Mutex
	conn net.Conn
	w    *bufio.Writer
}

func (s *subscriber) send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Write(msg)
	return s.w.Flush()
}

type hub struct {
	mu    sync.Mutex
	subs  map[*subscriber]struct{}
	ticks int64 // ticks pushed to every subscriber
	sent  int64 // lines written
}

func (h *hub) add(s *subscriber) {
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
}

func (h *hub) remove(s *subscriber) {
	h.mu.Lock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		s.conn.Close()
	}
	h.mu.Unlock()
}

func (h *hub) snapshot() []*subscriber {
	h.mu.Lock()
	defer h.mu.Unlock()
	subs := make([]*subscriber, 0, len(h.subs))
	for s := range h.subs {
		subs = append(subs, s)
	}
	return subs
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// tick formats one line: the instrument, its sequence number, a time stamp and five levels of book.
func tick(instr string, seq int64, mid float64) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "TICK %s seq=%d ts=%s bid=%.5f ask=%.5f", instr, seq, time.Now().UTC().Format(time.RFC3339Nano), mid-0.00002, mid+0.00002)
	for l := 1; l <= 5; l++ {
		fmt.Fprintf(&b, " b%d=%.5f@%d a%d=%.5f@%d", l, mid-0.00002*float64(l+1), 100000*l, l, mid+0.00002*float64(l+1), 120000*l)
	}
	b.WriteString(" venue=LP1\n")
	return []byte(b.String())
}

// feed pushes every tick of one instrument to every subscriber.
func (h *hub) feed(i int, every time.Duration) {
	instr := instruments[i]
	mid := 1.0 + float64(i)/10
	t := time.NewTicker(every)
	defer t.Stop()
	var seq int64
	for range t.C {
		seq++
		msg := tick(instr, seq, mid+float64(seq%50)*0.00001)
		for _, s := range h.snapshot() {
			if err := s.send(msg); err != nil {
				h.remove(s)
				continue
			}
			atomic.AddInt64(&h.sent, 1)
		}
		atomic.AddInt64(&h.ticks, 1)
	}
}

func (h *hub) serveConn(c net.Conn, sndbuf int) {
	if sndbuf > 0 {
		c.(*net.TCPConn).SetWriteBuffer(sndbuf)
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "SUB" {
		c.Close()
		return
	}
	s := &subscriber{conn: c, w: bufio.NewWriter(c)}
	h.add(s)
	// Nothing more is expected from a subscriber: read until it goes away.
	io.Copy(io.Discard, r)
	h.remove(s)
}

func serve(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7701", "where subscribers connect")
	debug := fs.String("debug", "127.0.0.1:7700", "pprof and /stats")
	every := fs.Duration("every", 20*time.Millisecond, "tick interval of each instrument")
	sndbuf := fs.Int("sndbuf", 0, "socket send buffer of each subscriber connection in bytes (0: the kernel's autotuning)")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	h := &hub{subs: make(map[*subscriber]struct{})}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "subscribers %d ticks %d sent %d\n", h.count(), atomic.LoadInt64(&h.ticks), atomic.LoadInt64(&h.sent))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go h.serveConn(c, *sndbuf)
		}
	}()
	for i := range instruments {
		go h.feed(i, *every)
	}
	time.Sleep(*life)
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7701", "server")
	conns := fs.Int("conns", 4, "subscriber connections")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	for i := 0; i < *conns; i++ {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := io.WriteString(c, "SUB\n"); err != nil {
			log.Fatal(err)
		}
		go io.Copy(io.Discard, c)
	}
	time.Sleep(*life)
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: ticker-push server|client [flags]")
	}
	switch os.Args[1] {
	case "server":
		serve(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: ticker-push server|client [flags]")
	}
}
