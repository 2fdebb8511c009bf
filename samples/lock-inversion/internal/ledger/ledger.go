// Package ledger moves money between accounts.
package ledger

import (
	"errors"
	"sync"
	"time"
)

var ErrInsufficient = errors.New("insufficient funds")

type Account struct {
	ID      string
	mu      sync.Mutex
	balance int64
}

func NewAccount(id string, balance int64) *Account { return &Account{ID: id, balance: balance} }

// Balance reads the balance under the account lock.
func (a *Account) Balance() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.balance
}

// Ledger applies transfers. FeeLookup stands for a slow call made while
// the source account is locked.
type Ledger struct {
	FeeLookup time.Duration
}

// Transfer locks from, then to: two transfers in opposite directions
// deadlock (lock-order inversion).
func (l *Ledger) Transfer(from, to *Account, amount int64) error {
	from.mu.Lock()
	defer from.mu.Unlock()
	fee := l.fee(from)
	if from.balance < amount+fee {
		return ErrInsufficient
	}
	to.mu.Lock()
	defer to.mu.Unlock()
	from.balance -= amount + fee
	to.balance += amount
	return nil
}

func (l *Ledger) fee(a *Account) int64 {
	time.Sleep(l.FeeLookup)
	return 1
}
