// Command ledger runs two transfers in opposite directions between the same
// two accounts (lock-order inversion: each holds one lock and waits for the
// other), while report requests pile up on one of the locks.
//
// With -global-deadlock, main waits for the reports instead of dumping, and
// the runtime itself reports "all goroutines are asleep - deadlock!".
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"example.com/ledger/internal/ledger"
	"leakscope.local/dumpkit"
)

var (
	readers = flag.Int("balance-readers", 200, "balance reads piling up on account A")
	global  = flag.Bool("global-deadlock", false, "block main too, so the runtime detects the deadlock")
)

func main() {
	h := dumpkit.Flags()
	a := ledger.NewAccount("acct-A", 1000)
	b := ledger.NewAccount("acct-B", 1000)
	l := &ledger.Ledger{FeeLookup: 20 * time.Millisecond}

	go l.Transfer(a, b, 10)
	go l.Transfer(b, a, 20)
	time.Sleep(100 * time.Millisecond) // both fee lookups are done; both wait for the other lock

	var wg sync.WaitGroup
	for i := 0; i < *readers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = a.Balance()
		}()
	}
	if *global {
		wg.Wait()
		fmt.Fprintln(os.Stderr, "ledger: no deadlock")
		os.Exit(3)
	}
	h.Finish()
}
