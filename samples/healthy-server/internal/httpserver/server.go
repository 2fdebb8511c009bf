// Package httpserver serves the inventory API.
package httpserver

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	"example.com/inventory/internal/cache"
	"example.com/inventory/internal/metrics"
	"example.com/inventory/internal/workers"
)

// Server is the inventory HTTP API.
type Server struct {
	Pool    *workers.Pool
	Catalog *cache.Catalog
	Metrics *metrics.Registry
	srv     *http.Server
}

// Listen starts serving on 127.0.0.1 (random port) and returns the base URL.
func (s *Server) Listen() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/items/", s.handleItem)
	mux.HandleFunc("/invalidate", s.handleInvalidate)
	s.srv = &http.Server{Handler: mux}
	go s.srv.Serve(ln)
	return "http://" + ln.Addr().String(), nil
}

func (s *Server) handleItem(w http.ResponseWriter, r *http.Request) {
	s.Metrics.Requests.Add(1)
	sku := strings.TrimPrefix(r.URL.Path, "/items/")
	reply := make(chan int, 1)
	s.Pool.Submit(workers.Job{SKU: sku, Reply: reply})
	price := <-reply
	_, cached := s.Catalog.Lookup(sku)
	fmt.Fprintf(w, `{"sku":%q,"price":%d,"cached":%v}`, sku, price, cached)
}

func (s *Server) handleInvalidate(w http.ResponseWriter, r *http.Request) {
	s.Catalog.Invalidate()
	w.WriteHeader(http.StatusNoContent)
}
