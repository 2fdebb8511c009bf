package replicaquery

import (
	"strings"
	"testing"
	"testing/synctest"
)

// TestFirstAnswer returns while the other replicas' senders are still blocked: synctest reports
// that the main bubble goroutine exited with blocked goroutines left.
func TestFirstAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if got := First("user/7", 3); !strings.HasPrefix(got, "user/7@") {
			t.Fatalf("got %q", got)
		}
	})
}
