package broker

import (
	"runtime"
	"testing"
	"time"
)

func TestPublishTwo(t *testing.T) {
	b := NewBroker("orders")
	go Subscribe(b, func(string) { time.Sleep(10 * time.Millisecond) }, func(s string) { t.Log(s) })
	b.Publish("created")
	go func() {
		time.Sleep(300 * time.Millisecond)
		// Two GCs while they wait: the second stamps each waiting goroutine with the first one's
		// time, which the traceback prints as `, N minutes`.
		runtime.GC()
		runtime.GC()
	}()
	b.Publish("paid")
}
