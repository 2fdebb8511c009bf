// Package leaseclose keeps a lease renewed until Close.
package leaseclose

import "time"

// Keeper renews a lease every second until Close.
type Keeper struct {
	stop chan struct{}
	done chan struct{}
}

// Start renews with renew every second.
func Start(renew func() error) *Keeper {
	k := &Keeper{stop: make(chan struct{}), done: make(chan struct{})}
	go k.loop(renew)
	return k
}

func (k *Keeper) loop(renew func() error) {
	defer close(k.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-k.stop:
			return
		case <-t.C:
			if err := renew(); err != nil {
				return // the bug: Close still sends on k.stop, and nobody receives any more
			}
		}
	}
}

// Close stops the renewals and waits for the loop to end.
func (k *Keeper) Close() {
	k.stop <- struct{}{} //stuck:close
	<-k.done
}
