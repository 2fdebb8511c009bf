package stream

import (
	"context"
	"testing"
)

func TestRunStopsEarly(t *testing.T) {
	n := Run(context.Background(), func(e Event) bool { return e.Seq < 4 })
	if n != 5 {
		t.Fatal(n)
	}
}
