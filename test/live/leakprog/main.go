// Command liveprog parks a known set of goroutines, serves net/http/pprof on a
// loopback port and waits to be captured. It is the live-capture subject of
// test/live/live-capture.test.ts (standard library only, Go 1.19).
//
// Once every goroutine is parked where it should be (checked against its own
// debug=2 profile, the way samples/dumpkit does), it prints one line
//
//	READY {"port":N,"pid":P,"goroutines":G}
//
// on stdout and sleeps. It exits when stdin closes (the test process went
// away) or after -lifetime, whichever comes first. Lines marked `@site NAME`
// are the blocking sites the test looks up by marker.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	httppprof "net/http/pprof"
	"os"
	"runtime"
	rpprof "runtime/pprof"
	"strings"
	"sync"
	"time"
)

var (
	senders   = flag.Int("senders", 40, "goroutines blocked forever sending on an unread channel (labelled role=sender)")
	waiters   = flag.Int("waiters", 25, "goroutines in a WaitGroup.Wait that never returns")
	selectors = flag.Int("selectors", 10, "goroutines in a select on two idle channels")
	lockers   = flag.Int("lockers", 7, "goroutines waiting for a mutex held forever")
	sleepers  = flag.Int("sleepers", 3, "goroutines in time.Sleep(1h)")
	lifetime  = flag.Duration("lifetime", 2*time.Minute, "exit after this long")
	readyIn   = flag.Duration("ready-timeout", 10*time.Second, "give up if the state is not reached in time")
)

// deliver is small enough to be inlined into sendForever.
func deliver(c chan<- int, v int) {
	c <- v // @site deliver
}

func sendForever(c chan<- int, v int) {
	deliver(c, v) // @site sendForever
}

func startSenders(n int, c chan<- int) {
	rpprof.Do(context.Background(), rpprof.Labels("role", "sender"), func(context.Context) {
		for i := 0; i < n; i++ {
			go sendForever(c, i) // @site startSenders
		}
	})
}

func waitAll(wg *sync.WaitGroup) {
	wg.Wait() // @site waitAll
}

func selectLoop(a, b chan int) {
	for {
		select { // @site selectLoop
		case <-a:
		case <-b:
		}
	}
}

func holdLock(mu *sync.Mutex, locked chan<- struct{}, release <-chan struct{}) {
	mu.Lock()
	close(locked)
	<-release // @site holdLock
	mu.Unlock()
}

func lockWait(mu *sync.Mutex) {
	mu.Lock() // @site lockWait
	mu.Unlock()
}

func nap() {
	time.Sleep(time.Hour) // @site nap
}

// watchParent exits the process when stdin reaches EOF: the test that started
// it has gone away.
func watchParent() {
	_, _ = io.Copy(io.Discard, os.Stdin) // @site watchParent
	os.Exit(0)
}

func park() {
	for {
		time.Sleep(time.Hour) // @site park
	}
}

type site struct {
	fn, state string
	n         int
}

// parked counts goroutines of a debug=2 profile whose stack holds fn and
// whose header shows state.
func parked(dump []byte, s site) int {
	n := 0
	for _, block := range strings.Split(string(dump), "\n\n") {
		lines := strings.Split(block, "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[0], "goroutine ") {
			continue
		}
		if !strings.Contains(lines[0], " ["+s.state+"]:") && !strings.Contains(lines[0], " ["+s.state+", ") {
			continue
		}
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, s.fn+"(") {
				n++
				break
			}
		}
	}
	return n
}

func main() {
	flag.Parse()
	time.AfterFunc(*lifetime, func() {
		fmt.Fprintln(os.Stderr, "liveprog: lifetime over")
		os.Exit(3)
	})
	go watchParent()

	never := make(chan int)
	startSenders(*senders, never)

	var wg sync.WaitGroup
	wg.Add(1)
	for i := 0; i < *waiters; i++ {
		go waitAll(&wg)
	}

	a, b := make(chan int), make(chan int)
	for i := 0; i < *selectors; i++ {
		go selectLoop(a, b)
	}

	var mu sync.Mutex
	locked, release := make(chan struct{}), make(chan struct{})
	go holdLock(&mu, locked, release)
	<-locked
	for i := 0; i < *lockers; i++ {
		go lockWait(&mu)
	}

	for i := 0; i < *sleepers; i++ {
		go nap()
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", httppprof.Index)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "liveprog:", err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()

	sites := []site{
		{"main.deliver", "chan send", *senders},
		{"main.waitAll", "semacquire", *waiters},
		{"main.selectLoop", "select", *selectors},
		{"main.holdLock", "chan receive", 1},
		{"main.lockWait", "semacquire", *lockers},
		{"main.nap", "sleep", *sleepers},
		{"net/http.(*Server).Serve", "IO wait", 1},
	}
	// main + watchParent + the sites.
	want := 2
	for _, s := range sites {
		want += s.n
	}
	deadline := time.Now().Add(*readyIn)
	for {
		var buf bytes.Buffer
		_ = rpprof.Lookup("goroutine").WriteTo(&buf, 2)
		var miss []string
		if g := runtime.NumGoroutine(); g != want {
			miss = append(miss, fmt.Sprintf("NumGoroutine %d, want %d", g, want))
		}
		for _, s := range sites {
			if got := parked(buf.Bytes(), s); got != s.n {
				miss = append(miss, fmt.Sprintf("%s [%s]: %d, want %d", s.fn, s.state, got, s.n))
			}
		}
		if len(miss) == 0 {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "liveprog: state not reached:", strings.Join(miss, "; "))
			os.Exit(1)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ready, _ := json.Marshal(map[string]int{"port": ln.Addr().(*net.TCPAddr).Port, "pid": os.Getpid(), "goroutines": want})
	fmt.Printf("READY %s\n", ready)
	park()
}
