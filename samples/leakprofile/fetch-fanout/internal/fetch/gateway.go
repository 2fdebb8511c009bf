// Package fetch asks every replica of a backend for the same key and keeps the first answer.
package fetch

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Result is one replica's answer.
type Result struct {
	Replica string
	Body    string
	Err     error
}

// Gateway fans a lookup out to its replicas.
type Gateway struct {
	Replicas []string
	// Latency is how long a healthy replica takes; a failing one answers at once.
	Latency time.Duration
	// Failing names the replica that answers with an error.
	Failing string
}

var errUnavailable = errors.New("replica unavailable")

func (g *Gateway) fetch(replica, key string) Result {
	if replica == g.Failing {
		return Result{Replica: replica, Err: fmt.Errorf("%s: %w", replica, errUnavailable)}
	}
	time.Sleep(g.Latency)
	return Result{Replica: replica, Body: key + "@" + replica}
}

// FirstAnswer returns the first replica's answer, error or not.
//
// The bug: it returns after the first value and nobody reads `results` again, so every other
// replica's fetcher blocks forever in its send, and the closer forever in wg.Wait.
func (g *Gateway) FirstAnswer(key string) (Result, error) {
	results := make(chan Result)
	var wg sync.WaitGroup
	for _, r := range g.Replicas {
		wg.Add(1)
		go func(replica string) {
			defer wg.Done()
			results <- g.fetch(replica, key) // leak: the send nobody receives
		}(r)
	}
	go func() {
		wg.Wait() // leak: waits for the stuck senders
		close(results)
	}()
	for res := range results {
		if res.Err != nil {
			return Result{}, res.Err // early return without draining results
		}
		return res, nil
	}
	return Result{}, errUnavailable
}
