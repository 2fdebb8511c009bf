package thumbs

import "testing"

func TestRenderThumbnails(t *testing.T) {
	got := renderThumbnails([]string{"a.jpg", "b.gif", "c.png"})
	if len(got) != 2 {
		t.Fatalf("got %v", got)
	}
}

// TestProgram runs the program as the evaluator did (its main, here an ordinary function of the
// package): the SIGQUIT dumps of regenerate.sh come from it.
func TestProgram(t *testing.T) { main() }
