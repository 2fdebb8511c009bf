// Command streamd is a daemon whose worker pools,
// started at start-up, have been idle for the whole uptime, while the
// goroutine sets of its streaming exec sessions hang. Each session runs a
// child process (`sleep`) and three goroutines: one copies the process's
// stdout to the client (io.Copy, parked in IO wait on the pipe), one feeds the
// client's input to the process (a read behind a sync.Cond on the session's
// input buffer, which the client never writes to or closes), one waits for
// the process (exec.Cmd.Wait, in a waitid syscall). The sessions are never
// closed, so every set stays.
//
// Wait minutes print only after real minutes, and the runtime stamps a
// goroutine's wait start at a GC with the previous GC's start: so the pools
// are stamped by two GCs right after they park, the sessions by a GC just
// before they open and one after. With the defaults the dump is taken 190 s
// after start-up: the pools print 3 minutes, the sessions 2.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"example.com/streamd/internal/export"
	"example.com/streamd/internal/ingest"
	"example.com/streamd/internal/session"
	"leakscope.local/dumpkit"
)

var (
	workers  = flag.Int("workers", 10, "workers in each of the two start-up pools")
	sessions = flag.Int("sessions", 164, "exec sessions left hanging (3 goroutines and one child process each)")
	delay    = flag.Duration("session-delay", 65*time.Second, "when the sessions open, after start-up")
	uptime   = flag.Duration("uptime", 190*time.Second, "when the dump is taken, after start-up")
)

func main() {
	h := dumpkit.Flags()
	h.Timeout += *uptime
	start := time.Now()

	jobs := make(chan ingest.Job)
	for i := 0; i < *workers; i++ {
		go ingest.Worker(jobs)
	}
	pool := export.NewPool(*workers)
	for runtime.NumGoroutine() < 1+2**workers {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // all parked in their receive
	runtime.GC()                      // sets the GC start time…
	runtime.GC()                      // …that stamps the pools' wait

	time.Sleep(time.Until(start.Add(*delay)))
	runtime.GC() // the stamp the sessions will get
	srv := session.NewServer()
	for i := 0; i < *sessions; i++ {
		if err := srv.Exec("sleep", "3600"); err != nil {
			fmt.Fprintln(os.Stderr, "exec:", err)
			os.Exit(1)
		}
	}
	for runtime.NumGoroutine() < 1+2**workers+3**sessions {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // every session goroutine parked
	runtime.GC()

	time.Sleep(time.Until(start.Add(*uptime)))
	h.Finish()
	_ = pool
	_ = jobs
}
