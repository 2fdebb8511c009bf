package registry

import (
	"testing"

	"example.com/deadlocks/internal/leakcheck"
)

var defs = []Plugin{{"auth", "v2"}, {"cache", "v1"}}

// The test goroutine itself hangs in Reload.
func TestReloadAppliesDefinitions(t *testing.T) {
	r := New()
	if gen := r.Reload(defs); gen != 1 {
		t.Fatalf("generation %d", gen)
	}
}

func TestReloadInBackground(t *testing.T) {
	defer leakcheck.VerifyNone(t)
	r := New()
	go r.Reload(defs)
}
