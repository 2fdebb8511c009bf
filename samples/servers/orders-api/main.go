// orders-api: an HTTP API over database/sql (standard library only: the driver is an in-process
// table, registered as "memtable"). The pool allows 4 open connections.
//
// GET /orders?customer=C lists a customer's orders. A row it cannot parse makes the handler return a
// 500 without closing the rows: each such request keeps one connection of the pool forever. After 4
// of them every later request waits for a connection that no goroutine will give back.
//
//	orders-api server -addr 127.0.0.1:7621 -debug 127.0.0.1:7620 -for 3m
//	orders-api client -addr 127.0.0.1:7621 -workers 6 -customer acme -for 3m
package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	_ "net/http/pprof"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The table: customer -> order amounts as text ("x" is a row the API cannot parse).
var table = map[string][]string{
	"acme":    {"12", "40", "7"},
	"globex":  {"3", "x", "9"},
	"initech": {"5"},
}

type memDriver struct{}
type memConn struct{}
type memStmt struct{ query string }
type memRows struct {
	vals []string
	i    int
}

func (memDriver) Open(string) (driver.Conn, error)            { return memConn{}, nil }
func (memConn) Prepare(q string) (driver.Stmt, error)         { return &memStmt{query: q}, nil }
func (memConn) Close() error                                  { return nil }
func (memConn) Begin() (driver.Tx, error)                     { return nil, errors.New("no transactions") }
func (s *memStmt) Close() error                               { return nil }
func (s *memStmt) NumInput() int                              { return 1 }
func (s *memStmt) Exec([]driver.Value) (driver.Result, error) { return nil, errors.New("read-only") }
func (s *memStmt) Query(args []driver.Value) (driver.Rows, error) {
	time.Sleep(time.Millisecond) // a query takes a moment
	return &memRows{vals: table[args[0].(string)]}, nil
}
func (r *memRows) Columns() []string { return []string{"amount"} }
func (r *memRows) Close() error      { return nil }
func (r *memRows) Next(dest []driver.Value) error {
	if r.i >= len(r.vals) {
		return io.EOF
	}
	dest[0] = r.vals[r.i]
	r.i++
	return nil
}

type api struct {
	db     *sql.DB
	served int64
}

func (a *api) orders(w http.ResponseWriter, r *http.Request) {
	// Query, not QueryContext: no request context closes the rows when the handler returns.
	rows, err := a.db.Query("SELECT amount FROM orders WHERE customer = ?", r.URL.Query().Get("customer"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	var total int
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			http.Error(w, "bad order row: "+s, http.StatusInternalServerError)
			return // the rows stay open: their connection is never given back to the pool
		}
		total += n
	}
	rows.Close()
	atomic.AddInt64(&a.served, 1)
	fmt.Fprintf(w, "%d\n", total)
}

func serve(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7621", "API address")
	debug := fs.String("debug", "127.0.0.1:7620", "pprof and /stats address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	sql.Register("memtable", memDriver{})
	db, err := sql.Open("memtable", "")
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(4)
	a := &api{db: db}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		s := db.Stats()
		fmt.Fprintf(w, "served %d open %d inuse %d waiting %d\n", atomic.LoadInt64(&a.served), s.OpenConnections, s.InUse, s.WaitCount)
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	mux := http.NewServeMux()
	mux.HandleFunc("/orders", a.orders)
	go func() { log.Println(http.ListenAndServe(*addr, mux)) }()
	time.Sleep(*life)
}

// client: workers each GET /orders for a customer in a loop (a 10-minute client timeout).
func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7621", "API address")
	workers := fs.Int("workers", 6, "concurrent requests")
	customer := fs.String("customer", "acme", "customer to list")
	count := fs.Int("n", 0, "requests per worker (0: until -for ends)")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	c := &http.Client{Timeout: 10 * time.Minute}
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; *count == 0 || k < *count; k++ {
				res, err := c.Get("http://" + *addr + "/orders?customer=" + *customer)
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), *life)
	defer cancel()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: orders-api server|client [flags]")
	}
	switch strings.TrimSpace(os.Args[1]) {
	case "server":
		serve(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: orders-api server|client [flags]")
	}
}
