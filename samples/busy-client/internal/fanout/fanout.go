// Package fanout is the catalog's own client: one shared Transport with a pool sized for bursts.
package fanout

import (
	"io"
	"net/http"
	"sync"
)

type Client struct {
	HTTP *http.Client
}

func New() *Client {
	tr := &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256}
	return &Client{HTTP: &http.Client{Transport: tr}}
}

// Get reads the whole body and closes it, so the connection goes back to the pool.
func (c *Client) Get(url string) error {
	resp, err := c.HTTP.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// Burst sends n requests at once and waits for all of them.
func (c *Client) Burst(url string, n int) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Get(url); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// Search is one user's search, in flight until the backend answers.
func (c *Client) Search(url string) {
	_ = c.Get(url)
}
