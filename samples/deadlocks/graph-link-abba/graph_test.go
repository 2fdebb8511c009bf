package graph

import (
	"runtime"
	"testing"
	"time"
)

func TestLinkIsSymmetric(t *testing.T) {
	a, b := NewNode(1), NewNode(2)
	done := make(chan struct{}, 2)
	go func() { a.Link(b); done <- struct{}{} }()
	go func() { b.Link(a); done <- struct{}{} }()
	time.Sleep(200 * time.Millisecond)
	// Two GCs while they wait: the second stamps each waiting goroutine with the first one's
	// time, which the traceback prints as `, N minutes`.
	runtime.GC()
	runtime.GC()
	<-done
	<-done
}
