package server

import "testing"

func TestStopAfterRequests(t *testing.T) {
	s := Listen("127.0.0.1:0", 2)
	s.requests <- 1
	s.requests <- 2
	s.Stop()
}
