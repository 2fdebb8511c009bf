// Command hooks delivers webhook events to a loopback receiver. Each
// delivery builds its own http.Transport and never closes the response
// body: every delivery leaves a connection open.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"example.com/hooks/internal/receiver"
	"example.com/hooks/internal/webhook"
	"leakscope.local/dumpkit"
)

var events = flag.Int("events", 150, "events to deliver")

func main() {
	h := dumpkit.Flags()
	base, err := receiver.Listen()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n := &webhook.Notifier{URL: base}
	for i := 0; i < *events; i++ {
		if err := n.Send(fmt.Sprintf(`{"event":"order.created","id":%d}`, i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	for deadline := time.Now().Add(3 * time.Second); receiver.Received.Load() != int64(*events) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	h.Finish()
}
