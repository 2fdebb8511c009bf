package metrics

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type Counters struct {
	requests atomic.Int64
}

func flushLoop(ctx context.Context, c *Counters, every time.Duration, wg *sync.WaitGroup) {
	defer wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n := c.requests.Swap(0); n > 0 {
				fmt.Println("flushed", n)
			}
		}
	}
}

func sampleLoop(ctx context.Context, c *Counters, wg *sync.WaitGroup) {
	defer wg.Done()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.requests.Add(1)
		}
	}
}

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer cancel()
	var wg sync.WaitGroup
	c := &Counters{}
	wg.Add(2)
	go flushLoop(ctx, c, 10*time.Second, &wg)
	go sampleLoop(ctx, c, &wg)
	<-ctx.Done()
	wg.Wait()
	_ = os.Stdout.Sync()
}
