package warmer

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

type Warmer struct {
	mu      sync.Mutex
	entries map[string]string
	warming bool
}

func NewWarmer() *Warmer { return &Warmer{entries: make(map[string]string)} }

func fetchOrigin(key string) string {
	time.Sleep(2 * time.Millisecond) // origin round trip
	return strings.Repeat(key, 2)
}

func (w *Warmer) store(key, val string) {
	w.mu.Lock() //stuck:store
	defer w.mu.Unlock()
	w.entries[key] = val
}

func (w *Warmer) WarmAll(keys []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.warming {
		return
	}
	w.warming = true
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func(k string) {
			defer wg.Done()
			w.store(k, fetchOrigin(k))
		}(k)
	}
	wg.Wait() //stuck:warm
	w.warming = false
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	w := NewWarmer()
	w.WarmAll([]string{"/home", "/pricing", "/docs"})
	fmt.Println("warmed", len(w.entries))
	<-stop
}
