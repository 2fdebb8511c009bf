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
//	upload-api client -addr 127.0.0.1:7732 -tls -workers 6 -size 2097152 -rate 65536 -for 3m
//
// -tls on the server also serves the API over TLS (a certificate made at start), where net/http
// speaks HTTP/2: a client with -tls sends its uploads as streams of one HTTP/2 connection.
//
// A client with -rate streams each body at that many bytes a second (an upload over a slow link);
// trickle opens connections that send a request's headers one line a second and never finish them.
// Stopping either process (SIGSTOP) leaves the server's goroutines waiting for bytes that do not come.
package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
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
	tlsAddr := fs.String("tls", "", "also serve the API over TLS (HTTP/2) at this address")
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
	if *tlsAddr != "" {
		go serveTLS(*tlsAddr, mux)
	}
	srv := &http.Server{Addr: *addr, Handler: mux}
	log.Fatal(srv.ListenAndServe())
}

// serveTLS serves h over TLS with a certificate made now (net/http negotiates HTTP/2), no timeouts either.
func serveTLS(addr string, h http.Handler) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "upload-api"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: addr, Handler: h,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}}
	log.Fatal(srv.ListenAndServeTLS("", ""))
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
	overTLS := fs.Bool("tls", false, "upload over TLS (HTTP/2), the certificate unchecked")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	deadline := time.Now().Add(*life)
	c, scheme := http.DefaultClient, "http"
	if *overTLS {
		c = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}}
		scheme = "https"
	}
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for n := 0; time.Now().Before(deadline); n++ {
				url := fmt.Sprintf("%s://%s/blob?name=w%d-%d", scheme, *addr, i, n%16)
				res, err := c.Post(url, "application/octet-stream", slowBody(*size, *rate))
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
