// rpc-inventory: an inventory service on the standard library's net/rpc (gob over TCP). The server
// registers Inventory with rpc.Register and serves every accepted connection with rpc.ServeConn;
// Inventory.List answers a page of 2048 stock records (about 250 KiB once gob-encoded) after a 1 s
// simulated warehouse query. net/rpc runs every call in its own goroutine and writes every response of one
// connection under that connection's `sending` mutex ((*Server).sendResponse), the encoding and the
// socket write included. When a client stops reading, the goroutine writing a response to it
// blocks in the socket write while holding the mutex, and every other call of that client queues
// for the mutex behind it.
//
// -sndbuf sets the server's per-connection socket send buffer (SetWriteBuffer; 0 keeps the kernel's
// default, autotuned buffer).
//
//	rpc-inventory server -addr 127.0.0.1:7691 -debug 127.0.0.1:7690 -sndbuf 65536 -for 3m
//	rpc-inventory client -addr 127.0.0.1:7691 -callers 20 -for 3m
package main

import (
	"bytes"
	"encoding/gob"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"net/rpc"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

type StockRecord struct {
	SKU         string
	Warehouse   string
	Bin         string
	Description string
	OnHand      int64
	Reserved    int64
	Updated     int64
}

type PageArgs struct {
	Warehouse string
	Page      int
}

type Page struct {
	Warehouse string
	Page      int
	Items     []StockRecord
}

type Inventory struct {
	pages  [][]StockRecord
	query  time.Duration
	served int64
}

// List answers one page of a warehouse's stock.
func (inv *Inventory) List(args *PageArgs, reply *Page) error {
	time.Sleep(inv.query)
	reply.Warehouse = args.Warehouse
	reply.Page = args.Page
	reply.Items = inv.pages[args.Page%len(inv.pages)]
	atomic.AddInt64(&inv.served, 1)
	return nil
}

func newInventory(pages, perPage int, query time.Duration) *Inventory {
	inv := &Inventory{query: query}
	for p := 0; p < pages; p++ {
		items := make([]StockRecord, perPage)
		for i := range items {
			n := p*perPage + i
			items[i] = StockRecord{
				SKU:         fmt.Sprintf("SKU-%08d", n),
				Warehouse:   fmt.Sprintf("WH-%02d", n%17),
				Bin:         fmt.Sprintf("A%02d-R%02d-S%02d", n%40, n%23, n%11),
				Description: fmt.Sprintf("stock item %08d, pallet of assorted fasteners and fittings, lot %06d", n, n*7%1000000),
				OnHand:      int64(n * 13 % 5000),
				Reserved:    int64(n * 7 % 300),
				Updated:     1700000000 + int64(n),
			}
		}
		inv.pages = append(inv.pages, items)
	}
	return inv
}

func serve(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7691", "rpc address")
	debug := fs.String("debug", "127.0.0.1:7690", "pprof and /stats address")
	perPage := fs.Int("page", 2048, "records per page")
	query := fs.Duration("query", time.Second, "time a warehouse query takes")
	sndbuf := fs.Int("sndbuf", 0, "per-connection socket send buffer (0: the kernel's default)")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	inv := newInventory(8, *perPage, *query)
	var enc bytes.Buffer
	if err := gob.NewEncoder(&enc).Encode(&Page{Items: inv.pages[0]}); err != nil {
		log.Fatal(err)
	}
	if err := rpc.Register(inv); err != nil {
		log.Fatal(err)
	}
	var conns int64
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "served %d conns %d pagebytes %d\n", atomic.LoadInt64(&inv.served), atomic.LoadInt64(&conns), enc.Len())
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
			if *sndbuf > 0 {
				c.(*net.TCPConn).SetWriteBuffer(*sndbuf)
			}
			atomic.AddInt64(&conns, 1)
			go rpc.ServeConn(c)
		}
	}()
	time.Sleep(*life)
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7691", "server")
	callers := fs.Int("callers", 20, "concurrent callers on the connection")
	pause := fs.Duration("pause", 20*time.Millisecond, "pause between the calls of one caller")
	spread := fs.Duration("spread", time.Second, "the callers start spread over this long")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	c, err := rpc.Dial("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < *callers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			time.Sleep(time.Duration(i) * *spread / time.Duration(*callers))
			for n := 0; ; n++ {
				var p Page
				if err := c.Call("Inventory.List", &PageArgs{Warehouse: fmt.Sprintf("WH-%02d", i%17), Page: n}, &p); err != nil {
					log.Fatal(err)
				}
				time.Sleep(*pause)
			}
		}(i)
	}
	go func() { time.Sleep(*life); os.Exit(0) }()
	wg.Wait()
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: rpc-inventory server|client [flags]")
	}
	switch os.Args[1] {
	case "server":
		serve(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: rpc-inventory server|client [flags]")
	}
}
