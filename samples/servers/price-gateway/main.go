// price-gateway: the gRPC analogue of quote-gateway, on Debian's grpc-go 1.33 (GOPATH mode). An HTTP
// gateway answers /price by making a unary gRPC call to a pricing backend through one shared
// grpc.ClientConn, with context.Background(): no deadline. When the backend stops answering (here it
// is stopped with SIGSTOP: its connection stays open, nothing comes back), every call waits for its
// response forever inside grpc's Invoke, and so does the handler that made it. With the default
// client options nothing ends that wait: no keepalive pings are sent, and the TCP connection is
// healthy as far as the kernel is concerned.
//
//	price-gateway backend -addr 127.0.0.1:7721 -for 3m
//	price-gateway gateway -addr 127.0.0.1:7722 -backend 127.0.0.1:7721 -debug 127.0.0.1:7720 -for 3m
//	price-gateway client -addr 127.0.0.1:7722 -workers 8 -for 3m
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
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

func (rawCodec) Marshal(v interface{}) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v interface{}) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

type pricingServer interface {
	Quote(ctx context.Context, sym []byte) ([]byte, error)
}

var serviceDesc = grpc.ServiceDesc{
	ServiceName: "pricing.Pricing",
	HandlerType: (*pricingServer)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Quote",
		Handler: func(srv interface{}, ctx context.Context, dec func(interface{}) error, _ grpc.UnaryServerInterceptor) (interface{}, error) {
			var req []byte
			if err := dec(&req); err != nil {
				return nil, err
			}
			resp, err := srv.(pricingServer).Quote(ctx, req)
			return &resp, err
		},
	}},
}

type pricing struct{}

func (pricing) Quote(_ context.Context, sym []byte) ([]byte, error) {
	time.Sleep(5 * time.Millisecond)
	return []byte(fmt.Sprintf("{\"symbol\":%q,\"price\":42}\n", sym)), nil
}

func backend(args []string) {
	fs := flag.NewFlagSet("backend", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7721", "gRPC address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	s := grpc.NewServer()
	s.RegisterService(&serviceDesc, pricing{})
	go func() { log.Println(s.Serve(lis)) }()
	time.Sleep(*life)
}

type gatewayServer struct {
	conn     *grpc.ClientConn
	served   int64
	inflight int64
}

func (g *gatewayServer) price(w http.ResponseWriter, r *http.Request) {
	atomic.AddInt64(&g.inflight, 1)
	defer atomic.AddInt64(&g.inflight, -1)
	req := []byte(r.URL.Query().Get("sym"))
	var resp []byte
	if err := g.conn.Invoke(context.Background(), "/pricing.Pricing/Quote", &req, &resp); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Write(resp)
	atomic.AddInt64(&g.served, 1)
}

func gateway(args []string) {
	fs := flag.NewFlagSet("gateway", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7722", "address")
	backendAddr := fs.String("backend", "127.0.0.1:7721", "backend gRPC address")
	debug := fs.String("debug", "127.0.0.1:7720", "pprof and /stats address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	conn, err := grpc.Dial(*backendAddr, grpc.WithInsecure())
	if err != nil {
		log.Fatal(err)
	}
	g := &gatewayServer{conn: conn}
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "served %d inflight %d\n", atomic.LoadInt64(&g.served), atomic.LoadInt64(&g.inflight))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	mux := http.NewServeMux()
	mux.HandleFunc("/price", g.price)
	go func() { log.Println(http.ListenAndServe(*addr, mux)) }()
	time.Sleep(*life)
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7722", "gateway address")
	workers := fs.Int("workers", 8, "concurrent requests")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	c := &http.Client{Timeout: 10 * time.Minute}
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for {
				res, err := c.Get(fmt.Sprintf("http://%s/price?sym=S%d", *addr, i))
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				time.Sleep(20 * time.Millisecond)
			}
		}(i)
	}
	go func() { time.Sleep(*life); os.Exit(0) }()
	wg.Wait()
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: price-gateway backend|gateway|client [flags]")
	}
	encoding.RegisterCodec(rawCodec{})
	switch os.Args[1] {
	case "backend":
		backend(os.Args[2:])
	case "gateway":
		gateway(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		log.Fatal("usage: price-gateway backend|gateway|client [flags]")
	}
}
