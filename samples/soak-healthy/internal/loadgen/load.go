// Package loadgen drives the quote API for a fixed time: steady callers over
// one keep-alive Transport, and batch callers that open fresh connections
// for each burst and close them afterwards, so connection counts move.
package loadgen

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Load is a running load generator.
type Load struct {
	Sent   atomic.Int64
	Errors atomic.Int64
	Cold   atomic.Int64
	wg     sync.WaitGroup
}

// Options shape the traffic.
type Options struct {
	Steady    int           // steady callers (keep-alive, one shared Transport)
	Pause     time.Duration // pause between a steady caller's requests
	ColdEvery int           // every Nth request of a caller asks for a cold SKU
	Batches   int           // batch callers per burst
	BurstGap  time.Duration // time between bursts
}

// Start runs the load until ctx ends.
func Start(ctx context.Context, base string, o Options) *Load {
	l := &Load{}
	steady := &http.Client{
		Transport: &http.Transport{MaxIdleConnsPerHost: o.Steady, IdleConnTimeout: time.Minute},
		Timeout:   5 * time.Second,
	}
	for c := 0; c < o.Steady; c++ {
		l.wg.Add(1)
		go func(c int) {
			defer l.wg.Done()
			// Callers are out of step: each starts at another point of the
			// cold-SKU cycle and pauses a little longer or shorter each time.
			for i := 7 * c; ctx.Err() == nil; i++ {
				l.get(steady, base, c, i, o.ColdEvery)
				time.Sleep(o.Pause + time.Duration((i*7+c*3)%5)*o.Pause/4)
			}
		}(c)
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for burst := 0; ctx.Err() == nil; burst++ {
			tr := &http.Transport{MaxIdleConnsPerHost: o.Batches}
			client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
			var bw sync.WaitGroup
			for c := 0; c < o.Batches; c++ {
				bw.Add(1)
				go func(c int) {
					defer bw.Done()
					for i := 0; i < 10+5*((burst+c)%4); i++ {
						l.get(client, base, 100+c, i+3*c, o.ColdEvery)
						time.Sleep(o.Pause)
					}
				}(c)
			}
			bw.Wait()
			tr.CloseIdleConnections()
			select {
			case <-ctx.Done():
			case <-time.After(o.BurstGap):
			}
		}
	}()
	return l
}

func (l *Load) get(client *http.Client, base string, caller, i, coldEvery int) {
	sku := fmt.Sprintf("sku-%d-%d", caller, i%50)
	if coldEvery > 0 && i%coldEvery == coldEvery-1 {
		sku = fmt.Sprintf("cold-%d-%d", caller, i)
		l.Cold.Add(1)
	}
	l.Sent.Add(1)
	resp, err := client.Get(base + "/quote?sku=" + sku)
	if err != nil {
		l.Errors.Add(1)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// Wait returns when every caller has stopped.
func (l *Load) Wait() { l.wg.Wait() }
