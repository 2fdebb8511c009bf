package workerpool

import (
	"fmt"
	"testing"
)

// Every directory has four subdirectories, three levels deep: far more than the queue holds.
func TestWalkTree(t *testing.T) {
	p := NewPool(3, 4)
	p.Start(func(t Task) []Task {
		if t.Depth == 3 {
			return nil
		}
		var out []Task
		for i := 0; i < 4; i++ {
			out = append(out, Task{Path: fmt.Sprintf("%s/%d", t.Path, i), Depth: t.Depth + 1})
		}
		return out
	})
	p.Submit(Task{Path: "/srv"})
	p.Drain()
}
