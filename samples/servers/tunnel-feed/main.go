// tunnel-feed: a feed server multiplexed over hashicorp/yamux (Debian's
// golang-github-hashicorp-yamux-dev 0.0+git20190923.df201c7), built in GOPATH mode, and its client.
//
// Each TCP connection is one yamux session (yamux.Server(conn, nil): the default config, a 256 KiB
// window per stream, keepalive every 30 s). Each stream a client opens carries one subscription
// ("SUB topic\n"); the server's producer for it, main.(*feed).stream, writes 4 KiB records to the
// stream every few milliseconds until a write fails. A healthy client keeps up. When a client process
// is stopped (SIGSTOP), its streams stop reading: once a stream's 256 KiB window is used up, its
// producer parks in yamux's (*Stream).write, waiting for a window update that does not come (the
// stream has no write deadline, so nothing times it out).
//
//	tunnel-feed server -addr 127.0.0.1:7671 -debug 127.0.0.1:7670 -size 4096 -every 10ms -for 3m
//	tunnel-feed client -addr 127.0.0.1:7671 -streams 25 -for 3m
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/yamux"
)

type feed struct {
	size     int
	every    time.Duration
	sndbuf   int   // SO_SNDBUF of each accepted connection; 0 leaves the kernel's autotuning
	sessions int64 // yamux sessions (TCP connections) open
	open     int64 // streams whose producer runs
	records  int64 // records written
}

// serveConn runs one yamux session over a TCP connection and hands each stream to a subscriber.
func (f *feed) serveConn(conn net.Conn) {
	defer conn.Close()
	if f.sndbuf > 0 {
		conn.(*net.TCPConn).SetWriteBuffer(f.sndbuf)
	}
	sess, err := yamux.Server(conn, nil)
	if err != nil {
		log.Print(err)
		return
	}
	atomic.AddInt64(&f.sessions, 1)
	defer atomic.AddInt64(&f.sessions, -1)
	for {
		st, err := sess.AcceptStream()
		if err != nil {
			return
		}
		go f.subscribe(st)
	}
}

// subscribe reads the stream's one-line subscription, then produces into the stream.
func (f *feed) subscribe(st *yamux.Stream) {
	defer st.Close()
	line, err := bufio.NewReader(st).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "SUB ") {
		return
	}
	f.stream(st, strings.TrimSpace(strings.TrimPrefix(line, "SUB ")))
}

// stream is the producer: it writes one record to the stream every f.every until a write fails.
// Nothing bounds a write: a peer that stops reading parks it once the stream's window is used up.
func (f *feed) stream(st *yamux.Stream, topic string) {
	atomic.AddInt64(&f.open, 1)
	defer atomic.AddInt64(&f.open, -1)
	rec := make([]byte, f.size)
	copy(rec[8:], topic)
	for seq := uint64(0); ; seq++ {
		binary.BigEndian.PutUint64(rec, seq)
		if _, err := st.Write(rec); err != nil {
			return
		}
		atomic.AddInt64(&f.records, 1)
		time.Sleep(f.every)
	}
}

func runServer(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7671", "feed address (TCP, yamux)")
	debug := fs.String("debug", "127.0.0.1:7670", "pprof and /stats address")
	size := fs.Int("size", 4096, "record size in bytes")
	every := fs.Duration("every", 10*time.Millisecond, "pause between two records of one stream")
	sndbuf := fs.Int("sndbuf", 0, "socket send buffer of each connection in bytes (0: the kernel's autotuning)")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	f := &feed{size: *size, every: *every, sndbuf: *sndbuf}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "streams %d records %d sessions %d\n", atomic.LoadInt64(&f.open), atomic.LoadInt64(&f.records), atomic.LoadInt64(&f.sessions))
	})
	go func() { log.Fatal(http.ListenAndServe(*debug, nil)) }()
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	// Bounded: the server stops itself after life.
	time.AfterFunc(*life, func() { log.Print("tunnel-feed: duration over"); os.Exit(0) })
	log.Printf("tunnel-feed server on %s, debug on %s", *addr, *debug)
	for {
		conn, err := lis.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go f.serveConn(conn)
	}
}

func runClient(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7671", "server address")
	streams := fs.Int("streams", 25, "streams to open over the one connection")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	conn, err := net.Dial("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	sess, err := yamux.Client(conn, nil)
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < *streams; i++ {
		st, err := sess.OpenStream()
		if err != nil {
			log.Fatal(err)
		}
		if _, err := fmt.Fprintf(st, "SUB topic-%d\n", i); err != nil {
			log.Fatal(err)
		}
		go io.Copy(io.Discard, st) // read everything, discard it
	}
	log.Printf("tunnel-feed client: %d streams open", *streams)
	time.Sleep(*life)
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: tunnel-feed server|client [flags]")
	}
	switch os.Args[1] {
	case "server":
		runServer(os.Args[2:])
	case "client":
		runClient(os.Args[2:])
	default:
		log.Fatal("usage: tunnel-feed server|client [flags]")
	}
}
