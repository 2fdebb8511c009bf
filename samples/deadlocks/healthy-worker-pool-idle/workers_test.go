package workers

import (
	"context"
	"testing"
	"time"
)

func TestPoolAtRest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := StartPool(ctx, 4)
	if p.Do(func() int { return 2 }) != 2 {
		t.Fatal("bad result")
	}
	time.Sleep(time.Hour)
}
