// Package api: an HTTP server on 127.0.0.1, idle between requests, with one keep-alive client
// connection open. Healthy: accept loop in IO wait, the connection's reader in IO wait.
package api

import (
	"fmt"
	"net"
	"net/http"
)

func Serve() (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return srv, "http://" + ln.Addr().String(), nil
}
