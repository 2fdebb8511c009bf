package api

import (
	"io"
	"net/http"
	"testing"
	"time"
)

func TestServeIdle(t *testing.T) {
	srv, base, err := Serve()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	time.Sleep(time.Hour) // the service stays up; SIGQUIT takes the dump
}
