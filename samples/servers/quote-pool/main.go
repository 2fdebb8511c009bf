// quote-pool: an HTTP pricing gateway that keeps a pool of TCP connections to a pricing engine with
// puddle (Debian's golang-github-jackc-puddle-dev 1.2.1, built in GOPATH mode). The pool allows 4
// connections (puddle.NewPool(dial, close, 4)), and the handler acquires one with the request's context:
// with a context that can be cancelled, puddle's Acquire starts a goroutine that waits on the pool's
// sync.Cond and selects on ctx.Done() and that goroutine's channel.
//
// GET /quote?sym=SYM asks the engine "PRICE SYM" and answers the price as JSON. An answer whose price
// does not parse makes the handler return a 502 without res.Release() (or res.Destroy()): each such
// request keeps one connection of the pool forever. After 4 of them every later request waits in
// (*Pool).Acquire until its client gives up.
//
// There is no pricing engine here: the same binary's `engine` role is a tiny line-protocol server on the
// standard library ("PRICE SYM\n" -> "OK SYM 42.00\n", "ERR unknown symbol SYM\n" for a symbol it does not
// know), whose answer for BAD has a price that does not parse ("OK BAD n/a\n").
//
//	quote-pool engine -addr 127.0.0.1:7662 -for 3m
//	quote-pool api -addr 127.0.0.1:7661 -engine 127.0.0.1:7662 -debug 127.0.0.1:7660 -for 3m
//	quote-pool client -addr 127.0.0.1:7661 -workers 8 -for 3m
package main

import (
	"bufio"
	"context"
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

	"github.com/jackc/puddle"
)

// symbols the engine prices (the client's workers ask for these).
var symbols = []string{"ACME", "GLOBEX", "INITECH", "HOOLI", "UMBRELLA", "STARK", "WAYNE", "TYRELL"}

// ---- the engine role: a line-protocol pricing server ----

func engineAnswer(line string) string {
	f := strings.Fields(line)
	if len(f) != 2 || f[0] != "PRICE" {
		return "ERR bad command\n"
	}
	if f[1] == "BAD" {
		return "OK BAD n/a\n" // a price the gateway cannot parse
	}
	for i, s := range symbols {
		if s == f[1] {
			return fmt.Sprintf("OK %s %d.%02d\n", s, 42+i, (i*17)%100)
		}
	}
	return "ERR unknown symbol " + f[1] + "\n"
}

func engineConnServe(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if _, err := io.WriteString(c, engineAnswer(line)); err != nil {
			return
		}
	}
}

func engineServer(args []string) {
	fs := flag.NewFlagSet("engine", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7662", "address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
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
			go engineConnServe(c)
		}
	}()
	time.Sleep(*life)
}

// ---- the api role ----

// engineConn is a pooled connection to the engine (with the reader of its answers).
type engineConn struct {
	net.Conn
	r *bufio.Reader
}

// ask sends one command and reads its one-line answer.
func (c *engineConn) ask(cmd string) (string, error) {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, cmd+"\n"); err != nil {
		return "", err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

type quote struct {
	Sym   string
	Price float64
}

// parseQuote parses "OK SYM PRICE".
func parseQuote(line string) (quote, error) {
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "OK" {
		return quote{}, fmt.Errorf("bad answer %q", line)
	}
	p, err := strconv.ParseFloat(f[2], 64)
	if err != nil {
		return quote{}, fmt.Errorf("bad price %q", f[2])
	}
	return quote{Sym: f[1], Price: p}, nil
}

type api struct {
	pool   *puddle.Pool
	served int64
}

func (a *api) quote(w http.ResponseWriter, r *http.Request) {
	sym := r.URL.Query().Get("sym")
	res, err := a.pool.Acquire(r.Context()) // waits for a free connection until the client gives up
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	c := res.Value().(*engineConn)
	line, err := c.ask("PRICE " + sym)
	if err != nil {
		res.Destroy() // a broken connection is closed, and its place given back
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if strings.HasPrefix(line, "ERR ") {
		res.Release()
		http.Error(w, strings.TrimPrefix(line, "ERR "), http.StatusNotFound)
		return
	}
	q, err := parseQuote(line)
	if err != nil {
		http.Error(w, "bad quote for "+sym+": "+err.Error(), http.StatusBadGateway)
		return // res is never released: its connection is never given back to the pool
	}
	res.Release()
	atomic.AddInt64(&a.served, 1)
	fmt.Fprintf(w, "{\"sym\":%q,\"price\":%.2f}\n", q.Sym, q.Price)
}

func apiServer(args []string) {
	fs := flag.NewFlagSet("api", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7661", "API address")
	engineAddr := fs.String("engine", "127.0.0.1:7662", "pricing engine address")
	debug := fs.String("debug", "127.0.0.1:7660", "pprof and /stats address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	dial := func(ctx context.Context) (interface{}, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", *engineAddr)
		if err != nil {
			return nil, err
		}
		return &engineConn{Conn: conn, r: bufio.NewReader(conn)}, nil
	}
	a := &api{pool: puddle.NewPool(dial, func(v interface{}) { v.(*engineConn).Close() }, 4)}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		s := a.pool.Stat()
		fmt.Fprintf(w, "served %d acquired %d idle %d total %d constructing %d max %d acquires %d empty %d canceled %d\n",
			atomic.LoadInt64(&a.served), s.AcquiredResources(), s.IdleResources(), s.TotalResources(),
			s.ConstructingResources(), s.MaxResources(), s.AcquireCount(), s.EmptyAcquireCount(), s.CanceledAcquireCount())
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	mux := http.NewServeMux()
	mux.HandleFunc("/quote", a.quote)
	go func() { log.Println(http.ListenAndServe(*addr, mux)) }()
	time.Sleep(*life)
}

// client: workers each GET a good symbol's quote in a loop, with a 10-minute client timeout.
func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7661", "API address")
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
				res, err := c.Get(fmt.Sprintf("http://%s/quote?sym=%s", *addr, symbols[i%len(symbols)]))
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
	const usage = "usage: quote-pool engine|api|client [flags]"
	if len(os.Args) < 2 {
		log.Fatal(usage)
	}
	switch os.Args[1] {
	case "engine":
		engineServer(os.Args[2:])
	case "api":
		apiServer(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal(usage)
	}
}
