// upload-api: an HTTP API storing uploaded blobs. POST /blob?name=N reads the whole request body
// (io.ReadAll), hashes it and keeps its digest. The API runs on a plain http.Server without
// ReadTimeout, ReadHeaderTimeout or IdleTimeout: a client that stops sending in the middle of a body
// keeps its handler reading forever, and one that stops in the middle of its request headers keeps
// its connection's goroutine reading them forever (nothing but the client ends either wait).
//
//	upload-api server -addr 127.0.0.1:7731 -debug 127.0.0.1:7730 -for 3m
//	upload-api client -addr 127.0.0.1:7731 -workers 8 -size 262144 -for 3m
//	upload-api client -addr 127.0.0.1:7731 -workers 4 -size 262144 -rate 65536 -for 3m
//	upload-api trickle -addr 127.0.0.1:7731 -conns 6 -for 3m
//
// A client with -rate streams each body at that many bytes a second (an upload over a slow link);
// trickle opens connections that send a request's headers one line a second and never finish them.
// Stopping either process (SIGSTOP) leaves the server's goroutines waiting for bytes that do not come.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// ---- the server role ----

type store struct {
	mu    sync.Mutex
	blobs map[string]string // name -> sha256 of the last upload

	stored, failed, reading int64
}

func (s *store) upload(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	name := r.URL.Query().Get("name")
	atomic.AddInt64(&s.reading, 1)
	body, err := io.ReadAll(r.Body)
	atomic.AddInt64(&s.reading, -1)
	if err != nil {
		atomic.AddInt64(&s.failed, 1)
		http.Error(w, "read: "+err.Error(), http.StatusBadRequest)
		return
	}
	sum := sha256.Sum256(body)
	digest := hex.EncodeToString(sum[:])
	s.mu.Lock()
	s.blobs[name] = digest
	s.mu.Unlock()
	atomic.AddInt64(&s.stored, 1)
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintln(w, digest)
}

func server(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7731", "API address")
	debug := fs.String("debug", "127.0.0.1:7730", "pprof and /stats address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	s := &store{blobs: map[string]string{}}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "stored %d failed %d reading %d\n",
			atomic.LoadInt64(&s.stored), atomic.LoadInt64(&s.failed), atomic.LoadInt64(&s.reading))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	time.AfterFunc(*life, func() { os.Exit(0) })
	mux := http.NewServeMux()
	mux.HandleFunc("/blob", s.upload)
	srv := &http.Server{Addr: *addr, Handler: mux}
	log.Fatal(srv.ListenAndServe())
}

// ---- the client role: workers uploading blobs in a loop ----

// slowBody streams size bytes at rate bytes a second, 4 KiB at a time (rate 0: at once).
func slowBody(size, rate int) io.Reader {
	if rate <= 0 {
		return io.LimitReader(zeros{}, int64(size))
	}
	pr, pw := io.Pipe()
	go func() {
		chunk := make([]byte, 4096)
		pause := time.Duration(float64(time.Second) * float64(len(chunk)) / float64(rate))
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := pw.Write(chunk); err != nil {
				return
			}
			time.Sleep(pause)
		}
		pw.Close()
	}()
	return pr
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 0
	}
	return len(p), nil
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7731", "API address")
	workers := fs.Int("workers", 8, "concurrent uploaders")
	size := fs.Int("size", 256<<10, "bytes per upload")
	rate := fs.Int("rate", 0, "bytes a second per upload (0: as fast as possible)")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	deadline := time.Now().Add(*life)
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for n := 0; time.Now().Before(deadline); n++ {
				url := fmt.Sprintf("http://%s/blob?name=w%d-%d", *addr, i, n%16)
				res, err := http.Post(url, "application/octet-stream", slowBody(*size, *rate))
				if err != nil {
					time.Sleep(50 * time.Millisecond)
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		}(i)
	}
	wg.Wait()
}

// ---- the trickle role: connections that send their headers a line a second ----

func trickle(args []string) {
	fs := flag.NewFlagSet("trickle", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7731", "API address")
	conns := fs.Int("conns", 6, "connections")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	deadline := time.Now().Add(*life)
	var wg sync.WaitGroup
	for i := 0; i < *conns; i++ {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			log.Fatal(err)
		}
		wg.Add(1)
		go func(i int, c net.Conn) {
			defer wg.Done()
			defer c.Close()
			w := bufio.NewWriter(c)
			fmt.Fprintf(w, "POST /blob?name=t%d HTTP/1.1\r\nHost: %s\r\n", i, *addr)
			w.Flush()
			for n := 0; time.Now().Before(deadline); n++ {
				time.Sleep(time.Second)
				fmt.Fprintf(w, "X-Part-%d: %d\r\n", n, n)
				if w.Flush() != nil {
					return
				}
			}
		}(i, c)
	}
	wg.Wait()
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: upload-api server|client|trickle [flags]")
	}
	switch os.Args[1] {
	case "server":
		server(os.Args[2:])
	case "client":
		client(os.Args[2:])
	case "trickle":
		trickle(os.Args[2:])
	default:
		log.Fatal("usage: upload-api server|client|trickle [flags]")
	}
}
