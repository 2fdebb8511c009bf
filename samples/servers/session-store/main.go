// session-store: an HTTP API that keeps its sessions in Redis through redigo (Debian's
// golang-github-gomodule-redigo-dev 1.8.3, built in GOPATH mode). The pool allows 4 connections
// (redis.Pool{MaxActive: 4, MaxIdle: 4, Wait: true}), and Get waits for a free one without a context.
//
// GET /session?id=ID reads the session's "user=NAME;created=UNIX" value and slides its expiry. A value
// without its created field makes the handler return a 500 before the deferred conn.Close() is set up:
// each such request keeps one connection of the pool forever. After 4 of them every later request
// waits in (*Pool).Get for a connection that no goroutine will give back.
//
// There is no Redis here: the same binary's `redis` role is a tiny server of the Redis protocol (RESP:
// arrays of bulk strings in; simple strings, integers, bulk strings and errors out) on the standard
// library, answering PING, GET, SET and EXPIRE, seeded with 8 good sessions (s0..s7) and a bad one.
//
//	session-store redis -addr 127.0.0.1:7652 -for 3m
//	session-store api -addr 127.0.0.1:7651 -redis 127.0.0.1:7652 -debug 127.0.0.1:7650 -for 3m
//	session-store client -addr 127.0.0.1:7651 -workers 8 -for 3m
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
)

// ---- the redis role: a RESP server over a map ----

type store struct {
	mu      sync.Mutex
	vals    map[string]string
	expires map[string]time.Time
}

func (s *store) get(k string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.expires[k]; ok && time.Now().After(t) {
		delete(s.vals, k)
		delete(s.expires, k)
	}
	v, ok := s.vals[k]
	return v, ok
}

// readCommand reads one command: an array of bulk strings (or an inline command, as redis-cli and nc send).
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimRight(line, "\r\n")
	if !strings.HasPrefix(line, "*") {
		return strings.Fields(line), nil
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 0 {
		return nil, errors.New("bad array header " + strconv.Quote(line))
	}
	args := make([]string, n)
	for i := range args {
		h, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		h = strings.TrimRight(h, "\r\n")
		if !strings.HasPrefix(h, "$") {
			return nil, errors.New("bad bulk header " + strconv.Quote(h))
		}
		size, err := strconv.Atoi(h[1:])
		if err != nil || size < 0 {
			return nil, errors.New("bad bulk length " + strconv.Quote(h))
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		args[i] = string(buf[:size])
	}
	return args, nil
}

func (s *store) exec(args []string) string {
	if len(args) == 0 {
		return "-ERR empty command\r\n"
	}
	bulk := func(v string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(v), v) }
	switch strings.ToUpper(args[0]) {
	case "PING":
		if len(args) > 1 {
			return bulk(args[1])
		}
		return "+PONG\r\n"
	case "GET":
		if len(args) != 2 {
			return "-ERR wrong number of arguments for 'get' command\r\n"
		}
		if v, ok := s.get(args[1]); ok {
			return bulk(v)
		}
		return "$-1\r\n"
	case "SET": // SET key value [EX seconds]
		if len(args) != 3 && !(len(args) == 5 && strings.EqualFold(args[3], "EX")) {
			return "-ERR syntax error\r\n"
		}
		s.mu.Lock()
		s.vals[args[1]] = args[2]
		delete(s.expires, args[1])
		if len(args) == 5 {
			sec, err := strconv.Atoi(args[4])
			if err != nil {
				s.mu.Unlock()
				return "-ERR value is not an integer or out of range\r\n"
			}
			s.expires[args[1]] = time.Now().Add(time.Duration(sec) * time.Second)
		}
		s.mu.Unlock()
		return "+OK\r\n"
	case "EXPIRE":
		if len(args) != 3 {
			return "-ERR wrong number of arguments for 'expire' command\r\n"
		}
		sec, err := strconv.Atoi(args[2])
		if err != nil {
			return "-ERR value is not an integer or out of range\r\n"
		}
		if _, ok := s.get(args[1]); !ok {
			return ":0\r\n"
		}
		s.mu.Lock()
		s.expires[args[1]] = time.Now().Add(time.Duration(sec) * time.Second)
		s.mu.Unlock()
		return ":1\r\n"
	}
	return fmt.Sprintf("-ERR unknown command '%s'\r\n", args[0])
}

func (s *store) serveConn(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	for {
		args, err := readCommand(r)
		if err != nil {
			if err != io.EOF {
				fmt.Fprintf(w, "-ERR %v\r\n", err)
				w.Flush()
			}
			return
		}
		w.WriteString(s.exec(args))
		if r.Buffered() == 0 { // a pipeline is answered in one write
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}

func redisServer(args []string) {
	fs := flag.NewFlagSet("redis", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7652", "address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	s := &store{vals: map[string]string{}, expires: map[string]time.Time{}}
	for i, u := range []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"} {
		s.vals[fmt.Sprintf("session:s%d", i)] = fmt.Sprintf("user=%s;created=%d", u, 1700000000+i*3600)
	}
	s.vals["session:bad"] = "user=mallory" // no created field: the API cannot parse it
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				log.Println(err)
				return
			}
			go s.serveConn(c)
		}
	}()
	time.Sleep(*life)
}

// ---- the api role ----

type session struct {
	User    string
	Created int64
}

func parseSession(v string) (session, error) {
	var s session
	var haveUser, haveCreated bool
	for _, kv := range strings.Split(v, ";") {
		k, val, ok := strings.Cut(kv, "=")
		if !ok {
			return s, fmt.Errorf("bad field %q", kv)
		}
		switch k {
		case "user":
			s.User, haveUser = val, true
		case "created":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return s, fmt.Errorf("bad created %q", val)
			}
			s.Created, haveCreated = n, true
		}
	}
	if !haveUser || !haveCreated {
		return s, errors.New("missing field")
	}
	return s, nil
}

type api struct {
	pool   *redis.Pool
	served int64
}

func (a *api) session(w http.ResponseWriter, r *http.Request) {
	key := "session:" + r.URL.Query().Get("id")
	conn := a.pool.Get() // waits for a free connection (Wait: true), with no context to give up
	v, err := redis.String(conn.Do("GET", key))
	if err == redis.ErrNil {
		conn.Close()
		http.Error(w, "no session", http.StatusNotFound)
		return
	}
	if err != nil {
		conn.Close()
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	s, err := parseSession(v)
	if err != nil {
		http.Error(w, "bad session "+key+": "+err.Error(), http.StatusInternalServerError)
		return // conn is never closed: its place in the pool is never given back
	}
	defer conn.Close()
	if _, err := conn.Do("EXPIRE", key, 1800); err != nil { // sliding expiry
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	atomic.AddInt64(&a.served, 1)
	fmt.Fprintf(w, "{\"user\":%q,\"created\":%d}\n", s.User, s.Created)
}

func apiServer(args []string) {
	fs := flag.NewFlagSet("api", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7651", "API address")
	redisAddr := fs.String("redis", "127.0.0.1:7652", "redis address")
	debug := fs.String("debug", "127.0.0.1:7650", "pprof and /stats address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	a := &api{pool: &redis.Pool{
		MaxActive: 4,
		MaxIdle:   4,
		Wait:      true,
		Dial:      func() (redis.Conn, error) { return redis.Dial("tcp", *redisAddr) },
	}}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		s := a.pool.Stats()
		fmt.Fprintf(w, "served %d active %d idle %d waits %d\n", atomic.LoadInt64(&a.served), s.ActiveCount, s.IdleCount, s.WaitCount)
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	mux := http.NewServeMux()
	mux.HandleFunc("/session", a.session)
	go func() { log.Println(http.ListenAndServe(*addr, mux)) }()
	time.Sleep(*life)
}

// client: workers each GET a good session (s0..s7) in a loop, with a 10-minute client timeout.
func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7651", "API address")
	workers := fs.Int("workers", 8, "concurrent requests")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	c := &http.Client{Timeout: 10 * time.Minute}
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for {
				res, err := c.Get(fmt.Sprintf("http://%s/session?id=s%d", *addr, i%8))
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				time.Sleep(20 * time.Millisecond)
			}
		}(i)
	}
	go func() { time.Sleep(*life); os.Exit(0) }()
	wg.Wait()
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: session-store redis|api|client [flags]")
	}
	switch os.Args[1] {
	case "redis":
		redisServer(os.Args[2:])
	case "api":
		apiServer(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: session-store redis|api|client [flags]")
	}
}
