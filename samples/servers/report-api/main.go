// report-api: an HTTP API over database/sql (standard library only: the driver is an in-process
// ledger, registered as "ledger") that opens its database in every request.
//
// GET /balance?account=A sums an account's entries. The handler calls openLedger, which calls
// sql.Open, and never closes the *sql.DB it gets: each sql.Open starts a goroutine
// (database/sql.(*DB).connectionOpener) that lives until DB.Close, and keeps the connection it pooled.
// Every request leaves one more. With -shared the database is opened once, as it should be.
//
//	report-api server -addr 127.0.0.1:7751 -debug 127.0.0.1:7750 -for 3m [-shared]
//	report-api client -addr 127.0.0.1:7751 -workers 6 -n 10 -for 3m
package main

import (
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
	"sync"
	"sync/atomic"
	"time"
)

// The ledger: account -> entries.
var ledger = map[string][]int64{
	"cash":    {1200, -300, 45},
	"sales":   {990, 410},
	"refunds": {-20},
}

type ledgerDriver struct{}
type ledgerConn struct{}
type ledgerStmt struct{}
type ledgerRows struct {
	vals []int64
	i    int
}

func (ledgerDriver) Open(string) (driver.Conn, error)         { return ledgerConn{}, nil }
func (ledgerConn) Prepare(string) (driver.Stmt, error)        { return ledgerStmt{}, nil }
func (ledgerConn) Close() error                               { return nil }
func (ledgerConn) Begin() (driver.Tx, error)                  { return nil, errors.New("no transactions") }
func (ledgerStmt) Close() error                               { return nil }
func (ledgerStmt) NumInput() int                              { return 1 }
func (ledgerStmt) Exec([]driver.Value) (driver.Result, error) { return nil, errors.New("read-only") }
func (ledgerStmt) Query(args []driver.Value) (driver.Rows, error) {
	return &ledgerRows{vals: ledger[args[0].(string)]}, nil
}
func (r *ledgerRows) Columns() []string { return []string{"amount"} }
func (r *ledgerRows) Close() error      { return nil }
func (r *ledgerRows) Next(dest []driver.Value) error {
	if r.i >= len(r.vals) {
		return io.EOF
	}
	dest[0] = r.vals[r.i]
	r.i++
	return nil
}

type api struct {
	shared *sql.DB // nil: open per request
	served int64
}

// openLedger opens the ledger database.
func openLedger() (*sql.DB, error) {
	return sql.Open("ledger", "file:ledger.db")
}

func (a *api) balance(w http.ResponseWriter, r *http.Request) {
	db := a.shared
	if db == nil {
		var err error
		if db, err = openLedger(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	var sum int64
	rows, err := db.QueryContext(r.Context(), "SELECT amount FROM entries WHERE account = ?", r.URL.Query().Get("account"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		sum += v
	}
	atomic.AddInt64(&a.served, 1)
	fmt.Fprintln(w, strconv.FormatInt(sum, 10))
}

func serve(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7751", "API address")
	debug := fs.String("debug", "127.0.0.1:7750", "pprof and /stats address")
	shared := fs.Bool("shared", false, "open the database once, not per request")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	sql.Register("ledger", ledgerDriver{})
	a := &api{}
	if *shared {
		db, err := openLedger()
		if err != nil {
			log.Fatal(err)
		}
		a.shared = db
	}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "served %d\n", atomic.LoadInt64(&a.served))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	time.AfterFunc(*life, func() { os.Exit(0) })
	mux := http.NewServeMux()
	mux.HandleFunc("/balance", a.balance)
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// client: workers each GET /balance n times (0: until -for ends).
func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7751", "API address")
	workers := fs.Int("workers", 6, "concurrent requests")
	count := fs.Int("n", 0, "requests per worker (0: until -for ends)")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	c := &http.Client{Timeout: 10 * time.Second}
	accounts := []string{"cash", "sales", "refunds"}
	deadline := time.Now().Add(*life)
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for k := 0; (*count == 0 || k < *count) && time.Now().Before(deadline); k++ {
				res, err := c.Get("http://" + *addr + "/balance?account=" + accounts[(i+k)%len(accounts)])
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				time.Sleep(5 * time.Millisecond)
			}
		}(i)
	}
	wg.Wait()
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: report-api server|client [flags]")
	}
	switch os.Args[1] {
	case "server":
		serve(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: report-api server|client [flags]")
	}
}
