// Command clusteragent serves object counts to UI websockets.
//
// This run reproduces `fatal error: concurrent map iteration and map write`:
// the Count sent to the watcher holds ItemCount values whose Namespaces and
// States maps are the same maps the store keeps writing under countLock,
// while the websocket writer json.Marshals them without the lock.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"example.com/clusteragent/pkg/clustercache"
	"example.com/clusteragent/pkg/resources/counts"
	"example.com/clusteragent/pkg/server"
)

var (
	idle    = flag.Int("idle-sessions", 32, "websocket sessions on quiet resource types")
	limit   = flag.Duration("limit", 20*time.Second, "exit 3 if it has not crashed by then")
	_       = flag.String("out", ".", "unused (the crash goes to stderr)")
	nsCount = flag.Int("namespaces", 300, "namespaces per type")
)

var types = []string{"apps.deployment", "pod", "secret", "configmap"}

func main() {
	flag.Parse()
	quiet := make(chan counts.APIEvent)
	for i := 0; i < *idle; i++ {
		go server.IdleSession(quiet)
	}
	cache := clustercache.New()
	store := counts.NewStore(cache)
	w := &server.WebSocketWriter{Conn: io.Discard}
	w.Run(store.Watch())
	cache.Run(types, *nsCount)

	time.Sleep(*limit)
	fmt.Fprintln(os.Stderr, "clusteragent: no crash within", *limit)
	os.Exit(3)
}
