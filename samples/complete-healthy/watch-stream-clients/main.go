// A client that holds 25 watch streams open (chunked responses read as events arrive), as a
// Kubernetes-style informer does: each stream's persistConn readLoop waits for the body to be read to
// the end, while a reader goroutine is reading it. Healthy: the bodies are being read. The program
// dumps itself with SIGQUIT (regenerate.sh).
package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

func serve(l net.Listener) {
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := w.(http.Flusher)
		for {
			fmt.Fprintf(w, "{\"type\":\"MODIFIED\",\"path\":%q}\n", r.URL.Path)
			f.Flush()
			time.Sleep(200 * time.Millisecond)
		}
	}))
}

func watch(c *http.Client, url string) {
	resp, err := c.Get(url)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		_ = sc.Text()
	}
}

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go serve(l)
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
	for i := 0; i < 25; i++ {
		go watch(c, fmt.Sprintf("http://%s/watch/%d", l.Addr(), i))
	}
	fmt.Fprintln(os.Stderr, "ready")
	select {}
}
