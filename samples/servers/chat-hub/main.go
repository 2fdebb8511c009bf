// chat-hub: a websocket chat room on gorilla/websocket (Debian's golang-github-gorilla-websocket-dev
// 1.5.0), built in GOPATH mode. Every message a client sends is broadcast to every client.
//
// The room's loop (hub.run) hands each message to every client's outgoing queue with a plain send,
// and a client's writer has no write deadline. A client that stops reading fills its socket, then its
// queue; the room's loop blocks on that queue, and every other client's reader then waits to hand
// its message to the room (and new clients wait to join it).
//
//	chat-hub server -addr 127.0.0.1:7601 -debug 127.0.0.1:7600 -for 3m
//	chat-hub client -addr 127.0.0.1:7601 -conns 10 -size 8192 -rate 2 -for 3m [-read=false]
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand"
	"net/http"
	_ "net/http/pprof"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

type hub struct {
	clients    map[*client]bool
	broadcast  chan []byte
	register   chan *client
	unregister chan *client
	members    int64 // read by /stats
}

func newHub() *hub {
	return &hub{
		clients:    map[*client]bool{},
		broadcast:  make(chan []byte),
		register:   make(chan *client),
		unregister: make(chan *client),
	}
}

func (h *hub) run() {
	for {
		select {
		case c := <-h.register:
			h.clients[c] = true
		case c := <-h.unregister:
			if h.clients[c] {
				delete(h.clients, c)
				close(c.send)
			}
		case m := <-h.broadcast:
			for c := range h.clients {
				c.send <- m
			}
		}
		atomic.StoreInt64(&h.members, int64(len(h.clients)))
	}
}

type client struct {
	h    *hub
	conn *websocket.Conn
	send chan []byte
}

func (c *client) readPump() {
	defer func() {
		c.h.unregister <- c
		c.conn.Close()
	}()
	for {
		_, m, err := c.conn.ReadMessage()
		if err != nil {
			return
		}
		c.h.broadcast <- m
	}
}

func (c *client) writePump() {
	for m := range c.send {
		if err := c.conn.WriteMessage(websocket.TextMessage, m); err != nil {
			return
		}
	}
	c.conn.WriteMessage(websocket.CloseMessage, nil)
}

var upgrader = websocket.Upgrader{ReadBufferSize: 4096, WriteBufferSize: 4096}

func serveWs(h *hub, w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &client{h: h, conn: conn, send: make(chan []byte, 16)}
	h.register <- c
	go c.writePump()
	go c.readPump()
}

func runServer(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7601", "websocket address")
	debug := fs.String("debug", "127.0.0.1:7600", "pprof and /stats address")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	fs.Parse(args)
	h := newHub()
	go h.run()
	http.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "members %d\n", atomic.LoadInt64(&h.members))
	})
	go func() { log.Println(http.ListenAndServe(*debug, nil)) }()
	mux := http.NewServeMux()
	mux.HandleFunc("/chat", func(w http.ResponseWriter, r *http.Request) { serveWs(h, w, r) })
	go func() { log.Println(http.ListenAndServe(*addr, mux)) }()
	time.Sleep(*life)
}

func runClients(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7601", "server address")
	conns := fs.Int("conns", 10, "connections")
	size := fs.Int("size", 8192, "bytes per message")
	rate := fs.Float64("rate", 2, "messages per second per connection")
	life := fs.Duration("for", 3*time.Minute, "exit after this long")
	read := fs.Bool("read", true, "read what the room sends (false: send only, a client that never reads)")
	fs.Parse(args)
	var wg sync.WaitGroup
	for i := 0; i < *conns; i++ {
		conn, _, err := websocket.DefaultDialer.Dial("ws://"+*addr+"/chat", nil)
		if err != nil {
			log.Fatal(err)
		}
		wg.Add(2)
		go func() { // read everything
			defer wg.Done()
			for *read {
				if _, _, err := conn.ReadMessage(); err != nil {
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			msg := make([]byte, *size)
			rand.Read(msg)
			t := time.NewTicker(time.Duration(float64(time.Second) / *rate))
			defer t.Stop()
			for range t.C {
				conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
				if err := conn.WriteMessage(websocket.BinaryMessage, msg); err != nil {
					return
				}
			}
		}()
	}
	go func() { time.Sleep(*life); os.Exit(0) }()
	wg.Wait()
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: chat-hub server|client [flags]")
	}
	switch os.Args[1] {
	case "server":
		runServer(os.Args[2:])
	case "client":
		runClients(os.Args[2:])
	default:
		log.Fatal("usage: chat-hub server|client [flags]")
	}
}
