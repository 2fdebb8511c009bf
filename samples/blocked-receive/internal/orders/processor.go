// Package orders prices incoming orders.
package orders

import (
	"fmt"
	"sync/atomic"

	"example.com/orders/internal/catalog"
)

type Order struct {
	ID  int
	SKU string
}

// Processor handles each order in its own goroutine and hands priced
// orders to a fixed set of shippers.
type Processor struct {
	Catalog *catalog.Client
	ship    chan Order
	Priced  atomic.Int64
	Shipped atomic.Int64
}

func NewProcessor(c *catalog.Client, shippers int) *Processor {
	p := &Processor{Catalog: c, ship: make(chan Order)}
	for i := 0; i < shippers; i++ {
		go p.shipper()
	}
	return p
}

// Submit processes o asynchronously.
func (p *Processor) Submit(o Order) { go p.process(o) }

func (p *Processor) process(o Order) {
	price, err := p.price(o)
	if err != nil {
		return
	}
	_ = price
	p.Priced.Add(1)
	p.ship <- o
}

func (p *Processor) price(o Order) (int, error) {
	res := <-p.Catalog.LookupAsync(o.SKU, o.ID)
	if res.Err != nil {
		return 0, fmt.Errorf("order %d: %w", o.ID, res.Err)
	}
	return res.Product.Price, nil
}

func (p *Processor) shipper() {
	for range p.ship {
		p.Shipped.Add(1)
	}
}
