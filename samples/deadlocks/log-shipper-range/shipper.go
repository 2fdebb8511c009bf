// Package shipper: Ship ranges over the lines channel until it is closed; Tail never closes it, so
// Ship never returns and the caller waiting for the flush hangs.
package shipper

import "strings"

type Shipper struct {
	sent    []string
	batches int
	flushed chan int
}

func NewShipper() *Shipper { return &Shipper{flushed: make(chan int)} }

func (s *Shipper) Ship(lines <-chan string) {
	for l := range lines { //stuck:range
		s.sent = append(s.sent, strings.TrimSpace(l))
	}
	s.batches++
	s.flushed <- len(s.sent)
}

// Tail feeds the file's lines and returns without closing lines.
func Tail(text string, lines chan<- string) {
	for _, l := range strings.Split(text, "\n") {
		lines <- l
	}
}
