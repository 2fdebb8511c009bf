// Package webhook posts events to subscriber endpoints.
package webhook

import (
	"bytes"
	"fmt"
	"net/http"
	"time"
)

// Notifier delivers one event per call.
type Notifier struct {
	URL string
}

// Send posts the event. Two bugs: a new Transport (connection pool) per
// call, and the response body is never closed, so every call leaves an
// open keep-alive connection with its readLoop and writeLoop goroutines.
func (n *Notifier) Send(event string) error {
	client := &http.Client{
		Transport: &http.Transport{IdleConnTimeout: 90 * time.Second},
	}
	resp, err := client.Post(n.URL+"/hook", "application/json", bytes.NewBufferString(event))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("webhook: %s", resp.Status)
	}
	return nil
}
