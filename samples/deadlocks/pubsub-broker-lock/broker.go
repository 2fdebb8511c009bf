// Package broker: Publish holds b.mu while it sends on the unbuffered events channel; the subscriber
// loop calls b.Stats() (which locks b.mu) before it receives again. Each waits for the other.
package broker

import (
	"fmt"
	"sync"
)

type Broker struct {
	topic     string
	delivered int
	events    chan string
	mu        sync.Mutex
	log       []string
}

func NewBroker(topic string) *Broker { return &Broker{topic: topic, events: make(chan string)} }

func (b *Broker) Publish(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.log = append(b.log, msg)
	b.events <- msg //stuck:publish
}

func (b *Broker) Stats() string {
	b.mu.Lock() //stuck:stats
	defer b.mu.Unlock()
	return fmt.Sprintf("%s: %d delivered, %d logged", b.topic, b.delivered, len(b.log))
}

// Subscribe handles events until the channel closes.
func Subscribe(b *Broker, handle func(string), report func(string)) {
	for ev := range b.events {
		b.delivered++
		handle(ev)
		report(b.Stats())
	}
}
