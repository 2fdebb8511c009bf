package signalling

import "testing"

func TestLoopSchedule(t *testing.T) {
	north, east, south := &segment{name: "north"}, &segment{name: "east"}, &segment{name: "south"}
	runLoopSchedule(north, east, south)
	if north.occupant != "S-3" {
		t.Fatalf("north occupied by %q", north.occupant)
	}
}

// TestProgram runs the program as the evaluator did (its main, here an ordinary function of the
// package): the SIGQUIT dumps of regenerate.sh come from it.
func TestProgram(t *testing.T) { main() }
