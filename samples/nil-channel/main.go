// Command notifier wires brokers from config. The brokers built by
// FromConfig have nil channels: their subscribers park in
// "chan receive (nil chan)" and publishers in "chan send (nil chan)".
// Plugins park in `select {}` ("select (no cases)") outside main.
package main

import (
	"flag"
	"fmt"
	"sync"

	"example.com/notifier/internal/broker"
	"example.com/notifier/internal/keepalive"
	"leakscope.local/dumpkit"
)

var (
	subs    = flag.Int("subscribers", 50, "subscribers of the misconfigured broker")
	pubs    = flag.Int("publishers", 30, "publishers to the misconfigured broker")
	plugins = flag.Int("plugins", 5, "plugins parked in select {}")
)

func main() {
	h := dumpkit.Flags()
	good := broker.New()
	var delivered sync.WaitGroup
	delivered.Add(10)
	good.Subscribe(func(broker.Notification) { delivered.Done() })
	for i := 0; i < 10; i++ {
		good.Publish(broker.Notification{Topic: "ok", Body: fmt.Sprint(i)})
	}
	delivered.Wait()
	good.Close()

	bad := broker.FromConfig("alerts")
	for i := 0; i < *subs; i++ {
		bad.Subscribe(func(broker.Notification) {})
	}
	for i := 0; i < *pubs; i++ {
		go bad.Publish(broker.Notification{Topic: "alerts", Body: fmt.Sprint(i)})
	}
	for i := 0; i < *plugins; i++ {
		keepalive.Forever(func() {})
	}
	h.Finish()
}
