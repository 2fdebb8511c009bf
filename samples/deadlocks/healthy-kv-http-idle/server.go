package kvserver

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

type kv struct {
	mu sync.RWMutex
	m  map[string]string
}

func (s *kv) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Path
	switch r.Method {
	case http.MethodPut:
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.m[key] = string(b)
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	default:
		s.mu.RLock()
		v, ok := s.m[key]
		s.mu.RUnlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, v)
	}
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: &kv{m: map[string]string{}}, IdleTimeout: 5 * time.Minute}
	go srv.Serve(ln)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	base := "http://" + ln.Addr().String()
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, err := client.Get(fmt.Sprintf("%s/key-%d", base, i))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}(i)
	}
	wg.Wait()
	fmt.Println("requests done; connections idle")
	<-stop
	srv.Close()
}
