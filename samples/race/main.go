// Command sessioncache has a data race on a map: a refresher goroutine
// writes the session map while a handler goroutine reads it, without a lock.
// Build with -race; the race detector prints WARNING: DATA RACE and the
// process exits with status 66.
package main

import (
	"flag"
	"fmt"
	"sync"
	"time"

	"example.com/sessioncache/internal/cache"
)

var _ = flag.String("out", ".", "unused (the report goes to stderr)")

func refresh(c *cache.Cache, wg *sync.WaitGroup) {
	defer wg.Done()
	c.Put("session:42", &cache.Entry{User: "alice", Roles: []string{"admin"}})
}

func handle(c *cache.Cache, wg *sync.WaitGroup) {
	defer wg.Done()
	if e := c.Get("session:42"); e != nil {
		fmt.Println("user", e.User)
	}
}

func main() {
	flag.Parse()
	c := cache.New()
	var wg sync.WaitGroup
	wg.Add(2)
	go refresh(c, &wg)
	time.Sleep(50 * time.Millisecond) // no happens-before edge: a sleep is not synchronization
	go handle(c, &wg)
	wg.Wait()
}
