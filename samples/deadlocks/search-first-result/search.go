// Package search: First queries every replica and keeps the fastest answer. The result channel is
// unbuffered, so every slower replica blocks forever in its send.
package search

import "time"

type Replica struct {
	Name  string
	Delay time.Duration
}

func (r Replica) query(q string) string {
	time.Sleep(r.Delay)
	return r.Name + ":" + q
}

func First(q string, replicas ...Replica) string {
	results := make(chan string)
	for _, r := range replicas {
		go func(r Replica) {
			results <- r.query(q) //stuck:send
		}(r)
	}
	return <-results
}
