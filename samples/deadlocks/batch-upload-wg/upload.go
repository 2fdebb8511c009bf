// Package upload: UploadAll adds one to the WaitGroup per part, but the skip path for empty parts
// returns without Done, so Wait never returns. No goroutine is left to call Done.
package upload

import (
	"sync"
)

type Part struct {
	Key  string
	Body []byte
}

type Bucket struct {
	mu      sync.Mutex
	objects map[string][]byte
}

func (b *Bucket) put(p Part) {
	b.mu.Lock()
	b.objects[p.Key] = append([]byte(nil), p.Body...)
	b.mu.Unlock()
}

func UploadAll(b *Bucket, parts []Part) {
	wg := new(sync.WaitGroup)
	wg.Add(len(parts))
	for _, p := range parts {
		go func(p Part) {
			if len(p.Body) == 0 {
				return // forgot wg.Done()
			}
			defer wg.Done()
			b.put(p)
		}(p)
	}
	wg.Wait() //stuck:wait
}
