package shipper

import "testing"

func TestShipFlushesAll(t *testing.T) {
	s := NewShipper()
	lines := make(chan string)
	go s.Ship(lines)
	Tail("a\nb\nc", lines)
	if n := <-s.flushed; n != 3 { //stuck:flushwait
		t.Fatal(n)
	}
}
