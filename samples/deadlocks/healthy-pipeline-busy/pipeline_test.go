package pipeline

import "testing"

func TestPipelineCompletes(t *testing.T) {
	if n := <-Run(1000, 2_000_000); n != 1000 {
		t.Fatal(n)
	}
}
