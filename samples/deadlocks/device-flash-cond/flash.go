package device

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

type Device struct {
	mu    sync.Mutex
	ready *sync.Cond
	up    bool
}

func NewDevice() *Device {
	d := &Device{}
	d.ready = sync.NewCond(&d.mu)
	return d
}

func (d *Device) powerOn() {
	time.Sleep(5 * time.Millisecond) // bootloader handshake
	d.mu.Lock()
	d.up = true
	d.mu.Unlock()
	d.ready.Broadcast()
}

func (d *Device) awaitBoot() {
	d.mu.Lock()
	d.ready.Wait() //stuck:await
	d.mu.Unlock()
}

func verifyImage(img []byte) [32]byte {
	sum := sha256.Sum256(img)
	time.Sleep(25 * time.Millisecond) // signature check against the vendor key
	return sum
}

func flash(d *Device, img []byte) error {
	go d.powerOn()
	sum := verifyImage(img)
	d.awaitBoot()
	fmt.Printf("flashing %d bytes, sha256 %x\n", len(img), sum[:4])
	return nil
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	if err := flash(NewDevice(), make([]byte, 4096)); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	<-stop
}
