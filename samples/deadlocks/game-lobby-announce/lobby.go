package lobby

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

type Lobby struct {
	mu      sync.Mutex
	players []string
	events  chan string
}

func NewLobby() *Lobby {
	l := &Lobby{events: make(chan string)}
	go l.announce()
	return l
}

func (l *Lobby) Join(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.players = append(l.players, name)
	l.events <- name + " joined" //stuck:join
}

func (l *Lobby) Count() int {
	l.mu.Lock() //stuck:count
	defer l.mu.Unlock()
	return len(l.players)
}

func (l *Lobby) announce() {
	for ev := range l.events {
		banner := decorate(ev)
		fmt.Printf("%s (%d in lobby)\n", banner, l.Count())
	}
}

func decorate(ev string) string {
	time.Sleep(10 * time.Millisecond) // renders the banner
	return "*** " + strings.ToUpper(ev) + " ***"
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	l := NewLobby()
	for _, p := range []string{"vex", "marigold", "quill"} {
		l.Join(p)
	}
	fmt.Println("lobby full")
	<-stop
}
