package resolver

import (
	"testing"
	"time"
)

func TestResolveStale(t *testing.T) {
	resolve, expire := Start(New(), 80*time.Millisecond)
	go func() {
		time.Sleep(20 * time.Millisecond)
		expire()
	}()
	if addr := resolve("db.internal"); addr != "" {
		t.Fatal(addr)
	}
}
