// Package receiver is the webhook endpoint (a loopback test server).
package receiver

import (
	"io"
	"net"
	"net/http"
	"sync/atomic"
)

var Received atomic.Int64

// Listen serves POST /hook on 127.0.0.1 (random port).
func Listen() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		Received.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"accepted":true}`)
	})
	go http.Serve(ln, mux)
	return "http://" + ln.Addr().String(), nil
}
