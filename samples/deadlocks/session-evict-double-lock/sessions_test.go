package sessions

import (
	"testing"
	"time"
)

func TestEvictKeepsAdmins(t *testing.T) {
	tbl := newTable("web")
	now := time.Now()
	tbl.byID[1] = &session{user: "root", expires: now.Add(-time.Second)}
	done := make(chan int)
	go func() {
		done <- evictExpired(tbl, now, func(s *session) bool { return s.user == "root" })
	}()
	if n := <-done; n != 0 {
		t.Fatalf("evicted %d", n)
	}
}
