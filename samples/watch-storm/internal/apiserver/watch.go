// Package apiserver is a minimal watch endpoint with a compacted history:
// a watch from a revision older than the compaction point is answered with
// an ERROR event ("too old resource version") and ended at once.
package apiserver

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

type Event struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// Server serves /watch/<type>?resourceVersion=N.
type Server struct {
	Compacted int64 // oldest revision still in history

	Watches atomic.Int64 // watch requests served
	TooOld  atomic.Int64 // of which answered with "too old"

	mu      sync.Mutex
	hold    chan struct{} // when non-nil, new watches wait here before answering
	Holding atomic.Int64  // watches waiting at hold
}

// Listen serves on 127.0.0.1 (random port).
func (s *Server) Listen() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/watch/", s.handleWatch)
	go http.Serve(ln, mux)
	return "http://" + ln.Addr().String(), nil
}

// Hold makes new watch requests wait (as an overloaded apiserver would)
// until Release; used to freeze the storm for a dump.
func (s *Server) Hold() { s.mu.Lock(); s.hold = make(chan struct{}); s.mu.Unlock() }

func (s *Server) Release() {
	s.mu.Lock()
	if s.hold != nil {
		close(s.hold)
		s.hold = nil
	}
	s.mu.Unlock()
}

func (s *Server) handleWatch(w http.ResponseWriter, r *http.Request) {
	s.Watches.Add(1)
	s.mu.Lock()
	hold := s.hold
	s.mu.Unlock()
	if hold != nil {
		s.Holding.Add(1)
		select {
		case <-hold:
		case <-r.Context().Done():
		}
		s.Holding.Add(-1)
	}

	typ := strings.TrimPrefix(r.URL.Path, "/watch/")
	rv, _ := strconv.ParseInt(r.URL.Query().Get("resourceVersion"), 10, 64)
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	if rv != 0 && rv < s.Compacted {
		s.TooOld.Add(1)
		status := fmt.Sprintf(`{"kind":"Status","status":"Failure","code":410,"reason":"Expired","message":"too old resource version: %d (%d)","details":{"kind":%q}}`, rv, s.Compacted, typ)
		enc.Encode(Event{Type: "ERROR", Object: json.RawMessage(status)})
		return
	}
	enc.Encode(Event{Type: "ADDED", Object: json.RawMessage(fmt.Sprintf(`{"kind":%q,"metadata":{"name":"a","resourceVersion":"%d"}}`, typ, s.Compacted+1))})
}
