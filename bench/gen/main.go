// Command gen writes a large, realistic goroutine dump for leakscope's benchmarks: N goroutines in a
// few hundred distinct stacks 10-25 frames deep, parked in varied states (chan send and receive,
// select, mutex, WaitGroup, IO wait on loopback, sleep), as debug=2, debug=1 and debug=0.
//
// debug=2 is written with runtime.Stack(all) into a buffer sized for it, as a SIGQUIT dump would be:
// net/http/pprof's debug=2 stops at 64 MiB (see -cap64).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"leakscope.dev/bench/gen/internal/maze"
	"leakscope.dev/bench/gen/internal/peers"
	"leakscope.dev/bench/gen/internal/streaming/dispatch"
)

var (
	n        = flag.Int("n", 250000, "goroutines to park")
	shapes   = flag.Int("shapes", 300, "distinct stacks")
	out      = flag.String("out", ".", "output folder")
	prefix   = flag.String("prefix", "", "file name prefix, default g<n>")
	ioConns  = flag.Int("io", 400, "loopback connections whose readers park in IO wait")
	cap64    = flag.Bool("cap64", false, "also write debug=2 through pprof.Lookup(goroutine).WriteTo(w, 2), which Go caps at 64 MiB")
	series   = flag.Int("series", 0, "instead of one dump, write this many debug=1 snapshots while a leak grows")
	every    = flag.Int("leak-per-step", 25, "with -series: goroutines leaked between two snapshots")
	wide     = flag.Bool("wide", false, "spell each shape's path with its own bits: -shapes distinct stacks (up to 262,144)")
	pileup   = flag.Int("pileup", 0, "instead of the shapes, this many queries, each waiting for -children lookups queued on one RWMutex whose holder is stuck elsewhere")
	kids     = flag.Int("children", 144, "with -pileup: lookups per query")
	distinct = flag.Int("distinct", 0, "instead of the shapes, this many goroutines each on its own stack (bench/gen/internal/maze), all waiting on one channel of one receiver")
)

func worker(shape int) {
	p := &dispatch.Pipeline{Route: "/apis/apps/v1/namespaces/default/deployments", Shape: shape, Wide: *wide}
	p.Run()
}

func loopbackConns(count int) []net.Conn {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	var server []net.Conn
	done := make(chan struct{})
	go func() {
		for i := 0; i < count; i++ {
			c, err := ln.Accept()
			if err != nil {
				panic(err)
			}
			server = append(server, c)
		}
		close(done)
	}()
	var client []net.Conn
	for i := 0; i < count; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			panic(err)
		}
		client = append(client, c)
	}
	<-done
	ln.Close()
	dispatch.Peers = server
	return client
}

// writeSeries writes -series debug=1 snapshots, an hour of 10-second captures: a steady pool of -n
// goroutines, and one leak site that gains -leak-per-step goroutines between snapshots.
func writeSeries() {
	dispatch.Hold()
	dispatch.Started.Add(*n)
	for i := 0; i < *n; i++ {
		go worker(i % *shapes)
	}
	dispatch.Started.Wait()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		panic(err)
	}
	for i := 0; i < *series; i++ {
		dispatch.Started.Add(*every)
		for j := 0; j < *every; j++ {
			go leak()
		}
		dispatch.Started.Wait()
		// Capture times ten seconds apart, as a collector polling every 10 s would name them.
		at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC).Add(time.Duration(i) * 10 * time.Second)
		name := filepath.Join(*out, "goroutine-"+at.Format("20060102T150405Z")+".txt")
		write(name, func(w *bufio.Writer) error { return pprof.Lookup("goroutine").WriteTo(w, 1) })
	}
	fmt.Printf("wrote %d debug=1 snapshots to %s\n", *series, *out)
	os.Exit(0)
}

// leak is the growing leak of the series: a send nobody receives.
func leak() {
	p := &dispatch.Pipeline{Route: "/leak", Shape: 0}
	p.Run()
}

// startPileup parks a lock pile-up: one compaction holding the table's write lock while it
// waits for a flush, -pileup queries in WaitGroup.Wait, -children lookups each queued for the read
// lock. Goroutines: 1 + pileup × (1 + children), and main.
func startPileup() {
	t := peers.NewTable()
	locked := make(chan struct{})
	go t.Compact(make(chan struct{}), locked)
	<-locked
	var started sync.WaitGroup
	started.Add(*pileup * (1 + *kids))
	for i := 0; i < *pileup; i++ {
		q := &peers.Query{Table: t}
		go q.Run(*kids, &started)
	}
	started.Wait()
}

// startMaze parks -distinct goroutines, each on a stack of its own (package maze).
func startMaze() {
	m := maze.New()
	m.Started.Add(*distinct)
	for i := 0; i < *distinct; i++ {
		go m.Walk(i)
	}
	m.Started.Wait()
}

// pileupParked: every goroutine of the pile-up is in one of its three parked stacks (a debug=1
// profile has one record per stack: the compaction, the queries, the lookups, and main writing it).
func pileupParked() bool {
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		panic(err)
	}
	records := 0
	for _, line := range strings.Split(b.String(), "\n") {
		if line != "" && line[0] >= '0' && line[0] <= '9' {
			records++
		}
	}
	return runtime.NumGoroutine() == 2+*pileup*(1+*kids) && records == 4
}

func write(path string, fn func(w *bufio.Writer) error) {
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fn(w); err != nil {
		panic(err)
	}
	if err := w.Flush(); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
}

func main() {
	flag.Parse()
	if *prefix == "" {
		*prefix = fmt.Sprintf("g%d", *n)
		if *pileup > 0 {
			*prefix = fmt.Sprintf("pileup%dx%d", *pileup, *kids)
		}
		if *distinct > 0 {
			*prefix = fmt.Sprintf("distinct%d", *distinct)
		}
	}
	if *pileup > 0 {
		startPileup()
	} else if *distinct > 0 {
		startMaze()
	} else {
		dispatch.Conns = loopbackConns(*ioConns)
	}
	if *series > 0 {
		writeSeries()
		return
	}
	if *pileup == 0 && *distinct == 0 {
		dispatch.Hold()
		dispatch.Started.Add(*n)
		for i := 0; i < *n; i++ {
			go worker(i % *shapes)
		}
		dispatch.Started.Wait()
	}
	time.Sleep(200 * time.Millisecond) // let the last ones park
	for *pileup > 0 && !pileupParked() {
		time.Sleep(50 * time.Millisecond)
	}
	base := filepath.Join(*out, *prefix)
	write(base+".debug0.pb.gz", func(w *bufio.Writer) error { return pprof.Lookup("goroutine").WriteTo(w, 0) })
	write(base+".debug1.txt", func(w *bufio.Writer) error { return pprof.Lookup("goroutine").WriteTo(w, 1) })
	if *cap64 {
		write(base+".debug2-cap64.txt", func(w *bufio.Writer) error { return pprof.Lookup("goroutine").WriteTo(w, 2) })
	}
	buf := make([]byte, 3200*runtime.NumGoroutine()+(64<<20))
	for {
		m := runtime.Stack(buf, true)
		if m < len(buf) {
			buf = buf[:m]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	write(base+".debug2.txt", func(w *bufio.Writer) error { _, err := w.Write(buf); return err })
	fmt.Printf("wrote %s.{debug0.pb.gz,debug1.txt,debug2.txt}: %d goroutines, %d bytes of debug=2\n", base, runtime.NumGoroutine(), len(buf))
	os.Exit(0)
}
