// grpc-feed: a server-streaming gRPC service built on Debian's grpc-go 1.33 (GOPATH mode, Go 1.19),
// and its client. The server publishes events to every subscriber through a per-subscriber queue;
// each subscriber's send loop takes from its queue and calls stream.Send. When a client process is
// stopped (SIGSTOP), its streams stop reading: HTTP/2 flow control closes, the send loop blocks in
// the transport's write quota, and the publisher keeps producing. The server counts such slow
// consumers (a send that takes longer than a second) itself. Both sides serve net/http/pprof.
//
//	grpc-feed server -addr 127.0.0.1:7301 -debug 127.0.0.1:7300 -size 16384 -rate 20
//	grpc-feed client -addr 127.0.0.1:7301 -debug 127.0.0.1:7310 -conns 25
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
)

// rawCodec carries []byte messages as they are, so no generated protobuf code is needed.
type rawCodec struct{}

func (rawCodec) Marshal(v interface{}) ([]byte, error)      { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v interface{}) error { *(v.(*[]byte)) = append([]byte(nil), data...); return nil }
func (rawCodec) Name() string                               { return "proto" }

type feedServer interface{ Subscribe(grpc.ServerStream) error }

var serviceDesc = grpc.ServiceDesc{
	ServiceName: "feed.Feed",
	HandlerType: (*feedServer)(nil),
	Streams: []grpc.StreamDesc{{
		StreamName:    "Subscribe",
		ServerStreams: true,
		Handler: func(srv interface{}, stream grpc.ServerStream) error {
			return srv.(feedServer).Subscribe(stream)
		},
	}},
}

// hub fans events out to subscribers, each through its own queue.
type hub struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
	slow    int64 // sends that took over a second: the server's own slow-consumer metric
	sent    int64
	sending int64 // sends in progress now: a stalled peer keeps its send here

}

type subscriber struct{ queue chan []byte }

func (h *hub) add() *subscriber {
	s := &subscriber{queue: make(chan []byte, 64)}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

func (h *hub) remove(s *subscriber) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// publish offers one event to every subscriber; a full queue drops the event for that subscriber.
func (h *hub) publish(ev []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		select {
		case s.queue <- ev:
		default:
		}
	}
}

func (h *hub) Subscribe(stream grpc.ServerStream) error {
	var req []byte
	if err := stream.RecvMsg(&req); err != nil {
		return err
	}
	sub := h.add()
	defer h.remove(sub)
	return h.sendLoop(stream.Context(), stream, sub)
}

// sendLoop is the producer into one stream: it waits for work in select, then blocks in Send when the
// peer does not read.
func (h *hub) sendLoop(ctx context.Context, stream grpc.ServerStream, sub *subscriber) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-sub.queue:
			start := time.Now()
			atomic.AddInt64(&h.sending, 1)
			err := stream.SendMsg(&ev)
			atomic.AddInt64(&h.sending, -1)
			if err != nil {
				return err
			}
			if time.Since(start) > time.Second {
				atomic.AddInt64(&h.slow, 1)
			}
			atomic.AddInt64(&h.sent, 1)
		}
	}
}

func runServer(addr, debug string, size, rate int, dur time.Duration) {
	h := &hub{subs: map[*subscriber]struct{}{}}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	s := grpc.NewServer()
	s.RegisterService(&serviceDesc, h)
	http.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		n := len(h.subs)
		h.mu.Unlock()
		fmt.Fprintf(w, "subscribers %d sent %d slow %d sending %d\n", n, atomic.LoadInt64(&h.sent), atomic.LoadInt64(&h.slow), atomic.LoadInt64(&h.sending))
	})
	go func() { log.Fatal(http.ListenAndServe(debug, nil)) }()
	go func() {
		ev := make([]byte, size)
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for range tick.C {
			h.publish(ev)
		}
	}()
	// Bounded: the server stops itself after dur.
	time.AfterFunc(dur, func() { log.Print("grpc-feed: duration over"); os.Exit(0) })
	log.Printf("grpc-feed server on %s, debug on %s", addr, debug)
	log.Fatal(s.Serve(lis))
}

func runClient(addr, debug string, conns int, dur time.Duration) {
	go func() { log.Fatal(http.ListenAndServe(debug, nil)) }()
	var got int64
	for i := 0; i < conns; i++ {
		cc, err := grpc.Dial(addr, grpc.WithInsecure(), grpc.WithBlock())
		if err != nil {
			log.Fatal(err)
		}
		st, err := cc.NewStream(context.Background(), &serviceDesc.Streams[0], "/feed.Feed/Subscribe")
		if err != nil {
			log.Fatal(err)
		}
		req := []byte("all")
		if err := st.SendMsg(&req); err != nil {
			log.Fatal(err)
		}
		st.CloseSend()
		go func() {
			for {
				var m []byte
				if err := st.RecvMsg(&m); err != nil {
					return
				}
				atomic.AddInt64(&got, 1)
			}
		}()
	}
	log.Printf("grpc-feed client: %d streams open", conns)
	time.Sleep(dur)
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: grpc-feed server|client [flags]")
	}
	encoding.RegisterCodec(rawCodec{})
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7301", "gRPC address")
	debug := fs.String("debug", "127.0.0.1:7300", "pprof address")
	size := fs.Int("size", 16384, "event size in bytes")
	rate := fs.Int("rate", 20, "events per second")
	conns := fs.Int("conns", 25, "client connections, one stream each")
	dur := fs.Duration("for", 5*time.Minute, "stop after this long")
	fs.Parse(os.Args[2:])
	switch os.Args[1] {
	case "server":
		runServer(*addr, *debug, *size, *rate, *dur)
	case "client":
		runClient(*addr, *debug, *conns, *dur)
	}
}
