package contacts

import (
	"strings"
	"testing"
)

func TestImportRejectsBadAddress(t *testing.T) {
	im := &Importer{}
	defer im.Close()
	_, err := im.Import(strings.NewReader(sample))
	if err == nil {
		t.Fatal("expected an error for the bad address")
	}
}

// TestProgram runs the program as the evaluator did (its main, here an ordinary function of the
// package): the SIGQUIT dumps of regenerate.sh come from it.
func TestProgram(t *testing.T) { main() }
