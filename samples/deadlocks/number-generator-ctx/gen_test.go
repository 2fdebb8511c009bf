package gen

import (
	"testing"

	"example.com/deadlocks/internal/leakcheck"
)

func TestTakeThree(t *testing.T) {
	defer leakcheck.VerifyNone(t)
	if got := Take(3); len(got) != 3 || got[2] != 9 {
		t.Fatal(got)
	}
}

func TestSoakTake(t *testing.T) {
	for i := 0; i < 2; i++ {
		Take(2)
	}
	select {} // keeps the process alive for inspection
}
