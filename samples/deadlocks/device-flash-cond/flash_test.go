package device

import "testing"

func TestFlash(t *testing.T) {
	if err := flash(NewDevice(), []byte("firmware-v2")); err != nil {
		t.Fatal(err)
	}
}

// TestProgram runs the program as the evaluator did (its main, here an ordinary function of the
// package): the SIGQUIT dumps of regenerate.sh come from it.
func TestProgram(t *testing.T) { main() }
