// export-api: an HTTP API that streams a ledger export as CSV (standard library only). GET
// /export?rows=N writes N generated rows, flushing every 64 KiB, on an http.Server without
// WriteTimeout: a client that stops reading without hanging up (a stopped process, a hung laptop)
// keeps its handler blocked in the socket write, with its buffers and connection, forever.
//
//	export-api server -addr 127.0.0.1:7771 -debug 127.0.0.1:7770 -sndbuf 16384 -for 3m
//	export-api client -addr 127.0.0.1:7771 -workers 4 -rows 200000 -rcvbuf 16384 -for 3m
//
// -sndbuf sets the server's per-connection socket send buffer and the client's -rcvbuf its receive
// buffer (0: the kernel's defaults, which on loopback absorb megabytes before a writer blocks).
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
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type exporter struct {
	exports, rows int64
}

func (x *exporter) export(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.URL.Query().Get("rows"))
	if err != nil || n <= 0 {
		http.Error(w, "rows: a positive count", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/csv")
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintln(bw, "entry,account,amount,memo")
	for i := 0; i < n; i++ {
		if _, err := fmt.Fprintf(bw, "%d,acct-%04d,%d.%02d,settlement batch %d of the quarter\n", i, i%7919, i%100000, i%100, i/1000); err != nil {
			return
		}
		atomic.AddInt64(&x.rows, 1)
	}
	bw.Flush()
	atomic.AddInt64(&x.exports, 1)
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
	addr := fs.String("addr", "127.0.0.1:7771", "API address")
	debug := fs.String("debug", "127.0.0.1:7770", "pprof and /stats address")
	sndbuf := fs.Int("sndbuf", 0, "per-connection socket send buffer (0: the kernel's default)")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	x := &exporter{}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "exports %d rows %d\n", atomic.LoadInt64(&x.exports), atomic.LoadInt64(&x.rows))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	time.AfterFunc(*life, func() { os.Exit(0) })
	mux := http.NewServeMux()
	mux.HandleFunc("/export", x.export)
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.Serve(smallBuffers{l, *sndbuf}))
}

// client: workers each download exports of -rows rows in a loop, reading every byte.
func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7771", "API address")
	workers := fs.Int("workers", 4, "concurrent downloads")
	rows := fs.Int("rows", 200000, "rows per export")
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
	deadline := time.Now().Add(*life)
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				res, err := client.Get(fmt.Sprintf("http://%s/export?rows=%d", *addr, *rows))
				if err != nil {
					time.Sleep(50 * time.Millisecond)
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		}()
	}
	wg.Wait()
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: export-api server|client [flags]")
	}
	switch os.Args[1] {
	case "server":
		server(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: export-api server|client [flags]")
	}
}
