// Package crawler: Crawl waits for every fetcher before it reads the results, but the results channel
// is unbuffered: the fetchers block in their sends and wg.Wait never returns.
package crawler

import (
	"fmt"
	"sync"
)

type page struct {
	url  string
	size int
}

type Crawler struct {
	depth   int
	fetch   func(string) int
	visited map[string]bool
}

func (c *Crawler) Crawl(urls []string) []page {
	var wg sync.WaitGroup
	results := make(chan page)
	for _, u := range urls {
		wg.Add(1)
		go c.worker(u, results, &wg)
	}
	wg.Wait() //stuck:wait
	close(results)
	var out []page
	for p := range results {
		out = append(out, p)
	}
	return out
}

func (c *Crawler) worker(u string, results chan<- page, wg *sync.WaitGroup) {
	defer wg.Done()
	results <- page{url: u, size: c.fetch(u)} //stuck:send
}

func New() *Crawler {
	return &Crawler{depth: 1, fetch: func(u string) int { return len(fmt.Sprint(u)) }, visited: map[string]bool{}}
}
