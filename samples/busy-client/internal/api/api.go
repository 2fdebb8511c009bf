// Package api serves the catalog: /item answers at once, /search waits for its backend.
package api

import (
	"net"
	"net/http"
	"sync"
)

type Server struct {
	// Arrived counts /item requests; they answer once Burst of them are in, so that the client
	// opens Burst connections at once (a burst of traffic).
	Burst   int
	arrived sync.WaitGroup
	burst   chan struct{}
	// Backend is closed when the search backend answers.
	Backend chan struct{}
	Waiting sync.WaitGroup
}

func (s *Server) Listen() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	s.burst = make(chan struct{})
	s.arrived.Add(s.Burst)
	go func() {
		s.arrived.Wait()
		close(s.burst)
	}()
	mux := http.NewServeMux()
	mux.HandleFunc("/item", s.item)
	mux.HandleFunc("/search", s.search)
	go http.Serve(ln, mux)
	return "http://" + ln.Addr().String(), nil
}

func (s *Server) item(w http.ResponseWriter, r *http.Request) {
	s.arrived.Done()
	<-s.burst
	w.Write([]byte("ok"))
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	s.Waiting.Done()
	<-s.Backend
	w.Write([]byte("results"))
}
