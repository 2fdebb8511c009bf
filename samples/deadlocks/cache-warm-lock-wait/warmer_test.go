package warmer

import "testing"

func TestWarmAll(t *testing.T) {
	w := NewWarmer()
	w.WarmAll([]string{"a", "b"})
	if len(w.entries) != 2 {
		t.Fatalf("entries %d", len(w.entries))
	}
}

// TestProgram runs the program as the evaluator did (its main, here an ordinary function of the
// package): the SIGQUIT dumps of regenerate.sh come from it.
func TestProgram(t *testing.T) { main() }
