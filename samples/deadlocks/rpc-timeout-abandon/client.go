// Package rpc: Call gives up after the deadline in a select on time.After, abandoning the unbuffered
// reply channel; the worker that produces the reply later blocks forever in its send.
package rpc

import (
	"errors"
	"time"
)

type Client struct {
	addr    string
	latency time.Duration
	calls   int
}

var ErrTimeout = errors.New("rpc: timeout")

func (c *Client) roundTrip(method string) []byte {
	time.Sleep(c.latency)
	return []byte(method + "@" + c.addr)
}

func (c *Client) Call(method string, timeout time.Duration) ([]byte, error) {
	c.calls++
	reply := make(chan []byte)
	go func() {
		reply <- c.roundTrip(method) //stuck:reply
	}()
	select {
	case b := <-reply:
		return b, nil
	case <-time.After(timeout):
		return nil, ErrTimeout
	}
}
