// Command batch imports 60 batches of 8 items; every 3rd batch has an item
// with an empty payload. Its validation error path skips wg.Done, so those
// batches wait in sync.WaitGroup.Wait forever.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"example.com/batch/internal/batch"
	"leakscope.local/dumpkit"
)

var batches = flag.Int("batches", 60, "batches to import")

func main() {
	h := dumpkit.Flags()
	r := &batch.Runner{}
	queue := make(chan batch.Batch)
	go r.Scheduler(queue, time.Minute)
	for i := 0; i < *batches; i++ {
		b := batch.Batch{ID: i}
		for n := 0; n < 8; n++ {
			p := fmt.Sprintf("row-%d-%d", i, n)
			if i%3 == 2 && n == 5 {
				p = ""
			}
			b.Items = append(b.Items, batch.Item{Batch: i, N: n, Payload: p})
		}
		queue <- b
	}
	stuck := int64(*batches / 3)
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		if r.Started.Load() == int64(*batches) && r.Finished.Load() == int64(*batches)-stuck && r.Rejected.Load() == stuck {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "batch: %d finished, %d rejected items\n", r.Finished.Load(), r.Rejected.Load())
	h.Finish()
}
