// Package keepalive keeps plugin goroutines alive forever.
package keepalive

import "sync/atomic"

var Started atomic.Int64

// Forever starts fn and then parks the goroutine for the life of the
// process with an empty select.
func Forever(fn func()) {
	go func() {
		fn()
		Started.Add(1)
		select {}
	}()
}
