package search

import (
	"testing"
	"time"

	"example.com/deadlocks/internal/leakcheck"
)

func TestFirstAnswerWins(t *testing.T) {
	defer leakcheck.VerifyNone(t)
	got := First("golang", Replica{"eu", 5 * time.Millisecond}, Replica{"us", 30 * time.Millisecond}, Replica{"ap", 40 * time.Millisecond})
	if got != "eu:golang" {
		t.Fatal(got)
	}
}

// A soak that keeps querying and then idles: the slower replicas pile up.
func TestSoakQueries(t *testing.T) {
	for i := 0; i < 3; i++ {
		First("q", Replica{"eu", time.Millisecond}, Replica{"us", 10 * time.Millisecond})
	}
	time.Sleep(time.Hour)
}
