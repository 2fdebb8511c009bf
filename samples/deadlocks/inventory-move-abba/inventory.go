// Package inventory: stock moves between bins lock the source bin then the destination bin, inside
// closures started by Rebalance. Two opposite moves lock in opposite orders.
package inventory

import (
	"sync"
	"time"
)

type Bin struct {
	Label string
	qty   map[string]int
	lock  sync.Mutex
}

func NewBin(label string) *Bin { return &Bin{Label: label, qty: map[string]int{"widget": 10}} }

type Move struct {
	From, To *Bin
	SKU      string
	N        int
}

// Rebalance applies the moves concurrently and waits for all of them.
func Rebalance(moves []Move) {
	var wg sync.WaitGroup
	for _, m := range moves {
		wg.Add(1)
		go func(m Move) {
			defer wg.Done()
			m.From.lock.Lock()
			defer m.From.lock.Unlock()
			time.Sleep(25 * time.Millisecond) // count the shelf
			m.To.lock.Lock()                  //stuck:move
			m.From.qty[m.SKU] -= m.N
			m.To.qty[m.SKU] += m.N
			m.To.lock.Unlock()
		}(m)
	}
	wg.Wait() //stuck:rebalance
}
