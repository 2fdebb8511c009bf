package dispatch

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

type Message struct {
	To      string
	Subject string
}

type Dispatcher struct {
	jobs    chan Message
	quit    chan struct{}
	wg      sync.WaitGroup
	sentMu  sync.Mutex
	sent    int
	retries []Message
}

func NewDispatcher(workers int) *Dispatcher {
	d := &Dispatcher{jobs: make(chan Message, 16), quit: make(chan struct{})}
	for i := 0; i < workers; i++ {
		d.wg.Add(1)
		go d.worker(i)
	}
	d.wg.Add(1)
	go d.retryLoop()
	return d
}

func (d *Dispatcher) worker(id int) {
	defer d.wg.Done()
	for m := range d.jobs { //stuck:range
		d.deliver(id, m)
	}
}

func (d *Dispatcher) deliver(id int, m Message) {
	d.sentMu.Lock()
	d.sent++
	d.sentMu.Unlock()
}

func (d *Dispatcher) retryLoop() {
	defer d.wg.Done()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-d.quit:
			return
		case <-t.C:
			d.sentMu.Lock()
			pending := d.retries
			d.retries = nil
			d.sentMu.Unlock()
			for _, m := range pending {
				d.jobs <- m
			}
		}
	}
}

func (d *Dispatcher) Send(m Message) { d.jobs <- m }

func (d *Dispatcher) Shutdown() {
	close(d.quit)
	d.wg.Wait() //stuck:shutdown
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	d := NewDispatcher(3)
	for _, to := range []string{"ops@example.net", "billing@example.net"} {
		d.Send(Message{To: to, Subject: "nightly report"})
	}
	d.Shutdown()
	fmt.Println("sent", d.sent)
	<-stop
}
