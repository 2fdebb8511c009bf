// Package pipeline: parse -> hash -> sink, mid-flight. The sink is busy computing, so upstream
// stages wait in their sends (back-pressure, not a deadlock: the sink is running and will receive).
package pipeline

import (
	"crypto/sha256"
	"strconv"
)

func parse(n int, out chan<- string) {
	for i := 0; i < n; i++ {
		out <- "record-" + strconv.Itoa(i)
	}
	close(out)
}

func hash(in <-chan string, out chan<- [32]byte) {
	for s := range in {
		out <- sha256.Sum256([]byte(s))
	}
	close(out)
}

// sink does expensive work per item.
func sink(in <-chan [32]byte, rounds int, done chan<- int) {
	n := 0
	for h := range in {
		for i := 0; i < rounds; i++ {
			h = sha256.Sum256(h[:])
		}
		n++
	}
	done <- n
}

func Run(n, rounds int) <-chan int {
	a, b, done := make(chan string), make(chan [32]byte), make(chan int, 1)
	go parse(n, a)
	go hash(a, b)
	go sink(b, rounds, done)
	return done
}
