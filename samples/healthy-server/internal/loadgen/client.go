// Package loadgen drives the API with a keep-alive HTTP client.
package loadgen

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Run sends rounds of requests from conns concurrent callers over one
// keep-alive Transport, so the Transport ends up with conns idle connections.
func Run(base string, conns, rounds int) (*http.Client, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: conns, IdleConnTimeout: 5 * time.Minute}
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	start := make(chan struct{})
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			<-start
			for i := 0; i < rounds; i++ {
				path := fmt.Sprintf("%s/items/sku-%d-%d", base, c, i)
				if i == rounds-1 && c == 0 {
					path = base + "/invalidate"
				}
				resp, err := client.Get(path)
				if err != nil {
					errs <- err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}(c)
	}
	close(start)
	wg.Wait()
	close(errs)
	return client, <-errs
}
