// Package broker delivers notifications from publishers to subscribers.
package broker

type Notification struct {
	Topic string
	Body  string
}

// Broker fans notifications out. Use New: the zero Broker has nil channels.
type Broker struct {
	events chan Notification
	acks   chan int
}

func New() *Broker {
	return &Broker{events: make(chan Notification, 64), acks: make(chan int, 64)}
}

// FromConfig builds a broker from a config section. BUG: it forgets to
// make the channels, so every send and receive on them blocks forever.
func FromConfig(name string) *Broker {
	b := &Broker{}
	_ = name
	return b
}

// Subscribe delivers notifications to fn until the broker is closed.
func (b *Broker) Subscribe(fn func(Notification)) {
	go func() {
		for n := range b.events {
			fn(n)
			b.acks <- 1
		}
	}()
}

// Publish sends one notification.
func (b *Broker) Publish(n Notification) {
	b.events <- n
}

// Close ends all subscriptions.
func (b *Broker) Close() { close(b.events) }
