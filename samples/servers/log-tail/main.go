// log-tail: a log relay. Producers POST log lines over HTTP; followers connect over TCP and are sent
// every line. One broker goroutine takes each line from its inbox and delivers it to every
// follower's buffered outbox; each follower's pump writes its outbox to the connection through a
// bufio.Writer, flushing per line, without a write deadline.
//
// A follower that stops reading fills its socket, then its outbox; the broker blocks delivering to it,
// and every producer's request then waits to put its line in the broker's inbox.
//
//	log-tail server -http 127.0.0.1:7611 -tail 127.0.0.1:7612 -debug 127.0.0.1:7610 -for 3m
//	log-tail produce -http 127.0.0.1:7611 -workers 8 -size 2048 -for 3m
//	log-tail follow -tail 127.0.0.1:7612 -conns 6 -for 3m
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
	"time"
)

type follower struct {
	conn   net.Conn
	outbox chan string
}

type broker struct {
	inbox     chan string
	join      chan *follower
	leave     chan *follower
	followers []*follower
	delivered int64
}

func (b *broker) loop() {
	for {
		select {
		case f := <-b.join:
			b.followers = append(b.followers, f)
		case f := <-b.leave:
			b.drop(f)
		case line := <-b.inbox:
			b.deliver(line)
		}
	}
}

func (b *broker) deliver(line string) {
	for _, f := range b.followers {
		f.outbox <- line
	}
	atomic.AddInt64(&b.delivered, 1)
}

func (b *broker) drop(f *follower) {
	for i, g := range b.followers {
		if g == f {
			b.followers = append(b.followers[:i], b.followers[i+1:]...)
			close(f.outbox)
			return
		}
	}
}

func (f *follower) pump(b *broker) {
	w := bufio.NewWriterSize(f.conn, 8192)
	for line := range f.outbox {
		if _, err := w.WriteString(line); err != nil {
			break
		}
		if err := w.Flush(); err != nil {
			break
		}
	}
	f.conn.Close()
}

func (b *broker) publish(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, line := range strings.SplitAfter(string(body), "\n") {
		if line != "" {
			b.inbox <- line
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func serve(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	httpAddr := fs.String("http", "127.0.0.1:7611", "where producers POST /log")
	tailAddr := fs.String("tail", "127.0.0.1:7612", "where followers connect")
	debug := fs.String("debug", "127.0.0.1:7610", "pprof and /stats")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	b := &broker{inbox: make(chan string), join: make(chan *follower), leave: make(chan *follower)}
	go b.loop()
	var followers int64
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "followers %d delivered %d\n", atomic.LoadInt64(&followers), atomic.LoadInt64(&b.delivered))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	mux := http.NewServeMux()
	mux.HandleFunc("/log", b.publish)
	go func() { log.Println(http.ListenAndServe(*httpAddr, mux)) }()
	ln, err := net.Listen("tcp", *tailAddr)
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f := &follower{conn: c, outbox: make(chan string, 64)}
			b.join <- f
			atomic.AddInt64(&followers, 1)
			go f.pump(b)
		}
	}()
	time.Sleep(*life)
}

func produce(args []string) {
	fs := flag.NewFlagSet("produce", flag.ExitOnError)
	addr := fs.String("http", "127.0.0.1:7611", "server")
	workers := fs.Int("workers", 8, "concurrent producers")
	size := fs.Int("size", 2048, "bytes per line")
	every := fs.Duration("every", 20*time.Millisecond, "pause between posts of one producer")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	line := strings.Repeat("x", *size-1) + "\n"
	client := &http.Client{Timeout: 10 * time.Minute}
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for {
				res, err := client.Post("http://"+*addr+"/log", "text/plain", bytes.NewBufferString(fmt.Sprintf("%d %s", i, line)))
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				time.Sleep(*every)
			}
		}(i)
	}
	go func() { time.Sleep(*life); os.Exit(0) }()
	wg.Wait()
}

func follow(args []string) {
	fs := flag.NewFlagSet("follow", flag.ExitOnError)
	addr := fs.String("tail", "127.0.0.1:7612", "server")
	conns := fs.Int("conns", 6, "connections")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	for i := 0; i < *conns; i++ {
		c, err := net.Dial("tcp", *addr)
		if err != nil {
			log.Fatal(err)
		}
		go io.Copy(io.Discard, c)
	}
	time.Sleep(*life)
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: log-tail server|produce|follow [flags]")
	}
	switch os.Args[1] {
	case "server":
		serve(os.Args[2:])
	case "produce":
		produce(os.Args[2:])
	case "follow":
		follow(os.Args[2:])
	default:
		log.Fatal("usage: log-tail server|produce|follow [flags]")
	}
}
