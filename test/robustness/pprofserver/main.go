// pprofserver serves net/http/pprof on 127.0.0.1 (a free port) for leakscope's URL tests. It parks
// -blocked goroutines on a channel receive, prints "LISTEN host:port" once serving, and exits when
// its stdin closes. Standard library only.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
)

func park(ch chan struct{}) {
	<-ch
}

func main() {
	blocked := flag.Int("blocked", 7, "goroutines parked on a channel receive")
	flag.Parse()
	ch := make(chan struct{})
	for i := 0; i < *blocked; i++ {
		go park(ch)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
		os.Exit(0)
	}()
	fmt.Printf("LISTEN %s\n", ln.Addr())
	_ = http.Serve(ln, nil)
}
