// Package archive keeps quotes in time buckets that are sealed when they roll over.
package archive

import "sync/atomic"

// Bucket holds the quotes of one time window. Its sealer goroutine writes the bucket out once the
// window is over, which Store.Roll signals by closing rolled.
type Bucket struct {
	Window int
	rolled chan struct{}
}

// Store opens one bucket per window and rolls them over.
type Store struct {
	buckets []*Bucket
	// Opened counts the sealer goroutines started.
	Opened atomic.Int64
}

// Open starts the bucket of window w and its sealer.
func (st *Store) Open(w int) *Bucket {
	b := &Bucket{Window: w, rolled: make(chan struct{})}
	st.buckets = append(st.buckets, b)
	go b.seal()
	st.Opened.Add(1)
	return b
}

// Roll moves on to window w, dropping the buckets of the windows before.
func (st *Store) Roll(w int) *Bucket {
	st.drop()
	return st.Open(w)
}

// Close drops the open buckets.
func (st *Store) Close() { st.drop() }

// drop forgets the open buckets. The bug: it never closes their rolled channel, so their sealers
// wait forever.
func (st *Store) drop() { st.buckets = st.buckets[:0] }

// seal waits for the window to roll over, then would write the bucket out.
func (b *Bucket) seal() {
	<-b.rolled
	_ = b.Window
}
