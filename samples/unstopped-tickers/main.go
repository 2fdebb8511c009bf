// Command chat opens and closes many client sessions. Each session starts a
// heartbeat ticker loop from one site and never stops it.
package main

import (
	"flag"
	"time"

	"example.com/chat/internal/session"
	"leakscope.local/dumpkit"
)

var sessions = flag.Int("sessions", 2000, "sessions opened and closed")

func main() {
	h := dumpkit.Flags()
	session.StartJanitor(time.Minute)
	for i := 0; i < *sessions; i++ {
		s := session.Open(i, 30*time.Second)
		s.Close()
	}
	for deadline := time.Now().Add(3 * time.Second); session.Heartbeats.Load() != int64(*sessions) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	h.Finish()
}
