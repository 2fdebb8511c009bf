// Package sessions: plain functions taking the table; evictExpired holds tbl.mu (not the first
// field) and calls touch, which locks tbl.mu again.
package sessions

import (
	"sync"
	"time"
)

type session struct {
	user    string
	expires time.Time
}

type table struct {
	name     string
	capacity int
	hits     uint64
	mu       sync.Mutex
	byID     map[int]*session
}

func newTable(name string) *table { return &table{name: name, capacity: 64, byID: map[int]*session{}} }

func touch(tbl *table, id int, now time.Time) {
	tbl.mu.Lock() //stuck:touch
	if s := tbl.byID[id]; s != nil {
		s.expires = now.Add(time.Minute)
	}
	tbl.hits++
	tbl.mu.Unlock()
}

func evictExpired(tbl *table, now time.Time, keep func(*session) bool) int {
	tbl.mu.Lock()
	defer tbl.mu.Unlock()
	n := 0
	for id, s := range tbl.byID {
		if keep(s) {
			touch(tbl, id, now) //stuck:evict
			continue
		}
		if s.expires.Before(now) {
			delete(tbl.byID, id)
			n++
		}
	}
	return n
}
