package fanout

import (
	"context"
	"testing"
)

func TestSumReportsShardError(t *testing.T) {
	_, err := Sum(context.Background(), []int{0, 1, 2, 3})
	if err == nil {
		t.Fatal("no error")
	}
}
