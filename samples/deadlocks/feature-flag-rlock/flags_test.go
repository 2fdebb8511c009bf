package flags

import (
	"testing"
	"time"
)

func TestRolloutDefault(t *testing.T) {
	s := NewFlagStore()
	go refreshLoop(s, 10*time.Millisecond)
	if s.Enabled("new-checkout", "user-42") {
		t.Log("user in rollout bucket")
	}
}

// TestProgram runs the program as the evaluator did (its main, here an ordinary function of the
// package): the SIGQUIT dumps of regenerate.sh come from it.
func TestProgram(t *testing.T) { main() }
