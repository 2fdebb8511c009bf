// Package gen: a generator whose goroutine ignores its context; Take reads a few values and cancels,
// but the generator goroutine stays blocked in its send.
package gen

import "context"

func Squares(ctx context.Context, from int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := from; ; i++ {
			ch <- i * i //stuck:gen
		}
	}()
	return ch
}

func Take(n int) []int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out []int
	for v := range Squares(ctx, 1) {
		out = append(out, v)
		if len(out) == n {
			break
		}
	}
	return out
}
