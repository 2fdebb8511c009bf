package ledger

import (
	"strings"
	"sync"
	"testing"
)

func TestLedgerSettles(t *testing.T) {
	alice, bob := NewAccount("alice", 100), NewAccount("bob", 100)
	cache := NewCache("rates")
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); Transfer(alice, bob, 10) }()
	go func() { defer wg.Done(); Transfer(bob, alice, 5) }()
	go func() { defer wg.Done(); cache.Refresh(strings.ToUpper) }()
	wg.Wait()
}
