package booking

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

type venue struct {
	mu    sync.Mutex
	seats map[string]string
	audit []string
}

func newVenue() *venue {
	return &venue{seats: make(map[string]string)}
}

func appendAudit(v *venue, entry string) {
	v.mu.Lock() //stuck:audit
	defer v.mu.Unlock()
	v.audit = append(v.audit, time.Now().Format(time.RFC3339)+" "+entry)
}

func reserveSeat(v *venue, seat, guest string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if owner, ok := v.seats[seat]; ok {
		return fmt.Errorf("seat %s is already held by %s", seat, owner)
	}
	v.seats[seat] = guest
	appendAudit(v, guest+" reserved "+seat)
	return nil
}

func bookGroup(v *venue, wanted map[string]string) error {
	for seat, guest := range wanted {
		if err := reserveSeat(v, seat, guest); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	v := newVenue()
	if err := bookGroup(v, map[string]string{"A12": "okafor", "A13": "lindqvist"}); err != nil {
		fmt.Fprintln(os.Stderr, "booking failed:", err)
	}
	fmt.Println("booked", len(v.seats), "seats")
	<-stop
}
