package telemetry

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

type Reading struct {
	Sensor string
	Value  float64
}

type Aggregator struct {
	wg     sync.WaitGroup
	cancel context.CancelFunc
}

func source(name string, values ...float64) <-chan Reading {
	ch := make(chan Reading, len(values))
	for _, v := range values {
		ch <- Reading{Sensor: name, Value: v}
	}
	close(ch)
	return ch
}

func (a *Aggregator) merge(ctx context.Context, temp, humidity <-chan Reading) <-chan Reading {
	out := make(chan Reading)
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer close(out)
		for temp != nil || humidity != nil {
			select {
			case r, ok := <-temp:
				if !ok {
					temp = nil
					continue
				}
				out <- r //stuck:temp
			case r, ok := <-humidity:
				if !ok {
					humidity = nil
					continue
				}
				out <- r //stuck:humidity
			}
		}
	}()
	return out
}

func (a *Aggregator) FirstAlarm(threshold float64) (Reading, bool) {
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	in := a.merge(ctx,
		source("temp", 21.5, 22.0, 48.3, 22.1),
		source("humidity", 40, 41, 44, 39))
	for r := range in {
		if r.Value > threshold {
			return r, true
		}
	}
	return Reading{}, false
}

func (a *Aggregator) Stop() {
	if a.cancel != nil {
		a.cancel()
	}
	a.wg.Wait() //stuck:stop
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	a := &Aggregator{}
	if r, ok := a.FirstAlarm(30); ok {
		fmt.Printf("alarm: %s=%.1f\n", r.Sensor, r.Value)
	}
	a.Stop()
	<-stop
}
