package lobby

import "testing"

func TestJoinThree(t *testing.T) {
	l := NewLobby()
	l.Join("a")
	l.Join("b")
	l.Join("c")
	if n := l.Count(); n != 3 {
		t.Fatalf("count %d", n)
	}
}

// TestProgram runs the program as the evaluator did (its main, here an ordinary function of the
// package): the SIGQUIT dumps of regenerate.sh come from it.
func TestProgram(t *testing.T) { main() }
