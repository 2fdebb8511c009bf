package fanout

import (
	"io"
	"sync"
	"testing"
	"time"
)

func TestRecordReachesSinks(t *testing.T) {
	_, pw := io.Pipe() // nobody reads it
	slow := &Exporter{w: pw}
	d := NewDispatcher(&Exporter{w: io.Discard}, &Exporter{w: io.Discard}, slow, &Exporter{w: io.Discard})
	go slow.Flush([]byte("snapshot"))
	time.Sleep(50 * time.Millisecond)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for k := 0; k < 100; k++ {
				d.Record(i*100 + k)
			}
		}(i)
	}
	wg.Wait() //stuck:wait
}
