// Command orders prices a batch of orders. Lookups of unknown products fail;
// the lookup goroutine then returns without sending or closing its result
// channel, so the order goroutine waits on it forever (chan receive).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"example.com/orders/internal/catalog"
	"example.com/orders/internal/orders"
	"leakscope.local/dumpkit"
)

var (
	n        = flag.Int("orders", 700, "orders to process (every 7th SKU is unknown)")
	shippers = flag.Int("shippers", 8, "shipper goroutines")
)

func main() {
	h := dumpkit.Flags()
	p := orders.NewProcessor(&catalog.Client{Quiet: true}, *shippers)
	for i := 1; i <= *n; i++ {
		p.Submit(orders.Order{ID: i, SKU: fmt.Sprintf("sku-%04d", i)})
	}
	want := int64(*n - *n/7)
	for deadline := time.Now().Add(5 * time.Second); p.Shipped.Load() != want && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "orders: %d shipped of %d\n", p.Shipped.Load(), *n)
	h.Finish()
}
