package thumbs

import (
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
)

var supported = map[string]bool{".jpg": true, ".jpeg": true, ".png": true}

func thumbPath(src string) string {
	ext := filepath.Ext(src)
	return strings.TrimSuffix(src, ext) + ".thumb" + ext
}

func renderThumbnails(paths []string) []string {
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		out []string
	)
	for _, p := range paths {
		wg.Add(1)
		if !supported[strings.ToLower(filepath.Ext(p))] {
			log.Printf("skipping %s: unsupported format", p)
			continue
		}
		go func(p string) {
			defer wg.Done()
			t := thumbPath(p)
			mu.Lock()
			out = append(out, t)
			mu.Unlock()
		}(p)
	}
	wg.Wait() //stuck:wait
	sort.Strings(out)
	return out
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	thumbs := renderThumbnails([]string{"beach.jpg", "notes.txt", "map.PNG"})
	fmt.Println(strings.Join(thumbs, "\n"))
	<-stop
}
