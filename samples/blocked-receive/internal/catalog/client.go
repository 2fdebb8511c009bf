// Package catalog looks products up in the catalog service.
package catalog

import (
	"errors"
	"fmt"
	"log"
	"os"
)

var logger = log.New(os.Stderr, "catalog: ", 0)

var ErrNotFound = errors.New("product not found")

type Product struct {
	SKU   string
	Price int
}

// Backend is the catalog service.
type Backend struct{}

func (Backend) Lookup(sku string, n int) (Product, error) {
	if n%7 == 0 {
		return Product{}, fmt.Errorf("lookup %s: %w", sku, ErrNotFound)
	}
	return Product{SKU: sku, Price: 100 + n%50}, nil
}

// Result of an asynchronous lookup.
type Result struct {
	Product Product
	Err     error
}

// Client wraps the backend with asynchronous lookups.
type Client struct {
	Backend Backend
	Quiet   bool
}

// LookupAsync starts a lookup and returns the channel its result arrives on.
func (c *Client) LookupAsync(sku string, n int) <-chan Result {
	ch := make(chan Result)
	go func() {
		p, err := c.Backend.Lookup(sku, n)
		if err != nil {
			if !c.Quiet {
				logger.Printf("lookup failed: %v", err)
			}
			return
		}
		ch <- Result{Product: p}
	}()
	return ch
}
