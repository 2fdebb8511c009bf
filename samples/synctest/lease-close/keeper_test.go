package leaseclose

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// TestCloseAfterFailedRenewal: the third renewal fails, the loop returns, and Close blocks forever
// on its send. Inside a bubble the block is durable, so synctest reports the deadlock at once.
func TestCloseAfterFailedRenewal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		k := Start(func() error {
			n++
			if n == 3 {
				return errors.New("lease lost")
			}
			return nil
		})
		time.Sleep(5 * time.Second)
		k.Close()
	})
}
