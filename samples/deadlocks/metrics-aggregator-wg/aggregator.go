// Package aggregator: Collect holds a.mu and waits for the scrapers; the scrapers send to an
// unbuffered channel drained by a goroutine that takes a.mu for every sample. Lock -> WaitGroup ->
// channel -> lock.
package aggregator

import "sync"

type sample struct {
	source string
	value  float64
}

type Aggregator struct {
	sources []string
	samples chan sample
	mu      sync.Mutex
	totals  map[string]float64
}

func New(sources ...string) *Aggregator {
	a := &Aggregator{sources: sources, samples: make(chan sample), totals: map[string]float64{}}
	go drain(a)
	return a
}

func drain(a *Aggregator) {
	for s := range a.samples {
		a.mu.Lock() //stuck:drain
		a.totals[s.source] += s.value
		a.mu.Unlock()
	}
}

func scrape(src string, out chan<- sample, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < 3; i++ {
		out <- sample{src, float64(i)} //stuck:scrape
	}
}

func (a *Aggregator) Collect() map[string]float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	var wg sync.WaitGroup
	for _, src := range a.sources {
		wg.Add(1)
		go scrape(src, a.samples, &wg)
	}
	wg.Wait() //stuck:collect
	return a.totals
}
