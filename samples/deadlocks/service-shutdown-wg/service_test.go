package service

import (
	"runtime"
	"testing"
	"time"
)

func TestShutdownReportsCounts(t *testing.T) {
	s := Start("billing", 2)
	time.Sleep(30 * time.Millisecond)
	go func() {
		time.Sleep(300 * time.Millisecond)
		// Two GCs while they wait: the second stamps each waiting goroutine with the first one's
		// time, which the traceback prints as `, N minutes`.
		runtime.GC()
		runtime.GC()
	}()
	if got := s.Shutdown(); len(got) != 2 {
		t.Fatal(got)
	}
}
