package booking

import "testing"

func TestReserveSeat(t *testing.T) {
	v := newVenue()
	if err := reserveSeat(v, "B7", "moreau"); err != nil {
		t.Fatal(err)
	}
	if len(v.audit) != 1 {
		t.Fatalf("audit has %d entries", len(v.audit))
	}
}

// TestProgram runs the program as the evaluator did (its main, here an ordinary function of the
// package): the SIGQUIT dumps of regenerate.sh come from it.
func TestProgram(t *testing.T) { main() }
