package render

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

type Frame struct{ N int }

type RenderPool struct {
	frames chan Frame
	done   chan int
	wg     sync.WaitGroup
}

func NewRenderPool(workers int) *RenderPool {
	p := &RenderPool{frames: make(chan Frame), done: make(chan int, 64)}
	for i := 0; i < workers; i++ {
		p.wg.Add(1)
		go p.render(i)
	}
	return p
}

func (p *RenderPool) render(id int) {
	defer p.wg.Done()
	for f := range p.frames {
		p.done <- f.N
	}
}

func (p *RenderPool) Close() {
	close(p.frames)
	p.wg.Wait()
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	p := NewRenderPool(4)
	for i := 0; i < 3; i++ {
		p.frames <- Frame{N: i}
	}
	for i := 0; i < 3; i++ {
		<-p.done
	}
	fmt.Println("rendered 3 frames; waiting for work")
	<-stop
	p.Close()
}
