package dispatch

import "testing"

func TestShutdownDrains(t *testing.T) {
	d := NewDispatcher(2)
	d.Send(Message{To: "a@example.net"})
	d.Shutdown()
	if d.sent != 1 {
		t.Fatalf("sent %d", d.sent)
	}
}

// TestProgram runs the program as the evaluator did (its main, here an ordinary function of the
// package): the SIGQUIT dumps of regenerate.sh come from it.
func TestProgram(t *testing.T) { main() }
