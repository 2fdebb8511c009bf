// Package ledger holds two independent deadlock bugs: Transfer locks two accounts in argument
// order (AB-BA when two transfers run in opposite directions), and (*Cache).Refresh holds c.mu while
// calling Get, which RLocks the same c.mu.
package ledger

import (
	"sync"
	"time"
)

type Account struct {
	ID      string
	mu      sync.Mutex
	balance int64
}

func NewAccount(id string, balance int64) *Account { return &Account{ID: id, balance: balance} }

// Transfer moves amount from a to b. It locks a first, then b: two opposite transfers deadlock.
func Transfer(a, b *Account, amount int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	time.Sleep(20 * time.Millisecond) // audit log write; widens the window
	b.mu.Lock()                       //stuck:transfer
	defer b.mu.Unlock()
	a.balance -= amount
	b.balance += amount
}

type Cache struct {
	name    string
	mu      sync.RWMutex
	entries map[string]string
	loads   int
}

func NewCache(name string) *Cache { return &Cache{name: name, entries: map[string]string{}} }

func (c *Cache) Get(key string) (string, bool) {
	c.mu.RLock() //stuck:get
	defer c.mu.RUnlock()
	v, ok := c.entries[key]
	return v, ok
}

// Refresh reloads every entry. It calls Get while holding the write lock: self-deadlock.
func (c *Cache) Refresh(load func(string) string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loads++
	for _, k := range []string{"alpha", "beta"} {
		if _, ok := c.Get(k); !ok { //stuck:refresh
			c.entries[k] = load(k)
		}
	}
}
