// Package feed fans event log tails out to subscribers.
package feed

// Kind of a notification.
type Kind int

const (
	KindRecord Kind = iota
	KindFailure
)

// Notification is what a subscriber receives.
type Notification struct {
	Kind    Kind
	Payload interface{}
}

// Record is a log entry.
type Record struct {
	Offset int64
	Key    string
	Body   []byte
}

// Fault describes a failed tail; it is not a Record.
type Fault struct {
	Text string
}
