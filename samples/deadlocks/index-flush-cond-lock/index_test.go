package index

import "testing"

func TestFlushAfterAppend(t *testing.T) {
	idx := Open("/var/lib/idx")
	idx.Append(3)
	idx.Flush()
}
