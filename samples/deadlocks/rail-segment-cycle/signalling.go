package signalling

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

type segment struct {
	name     string
	mu       sync.Mutex
	occupant string
}

func advance(train string, from, to *segment) {
	from.mu.Lock()
	defer from.mu.Unlock()
	from.occupant = train
	time.Sleep(20 * time.Millisecond) // the train runs to the end of its segment
	to.mu.Lock()                      //stuck:advance
	defer to.mu.Unlock()
	to.occupant = train
	from.occupant = ""
}

func runLoopSchedule(north, east, south *segment) {
	var wg sync.WaitGroup
	moves := []struct {
		train    string
		from, to *segment
	}{
		{"IC-401", north, east},
		{"RE-17", east, south},
		{"S-3", south, north},
	}
	for _, m := range moves {
		wg.Add(1)
		go func(train string, from, to *segment) {
			defer wg.Done()
			advance(train, from, to)
		}(m.train, m.from, m.to)
	}
	wg.Wait() //stuck:schedule
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	north, east, south := &segment{name: "north"}, &segment{name: "east"}, &segment{name: "south"}
	runLoopSchedule(north, east, south)
	fmt.Println("schedule complete")
	<-stop
}
