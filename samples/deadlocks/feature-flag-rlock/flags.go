package flags

import (
	"fmt"
	"hash/fnv"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

type FlagStore struct {
	mu       sync.RWMutex
	flags    map[string]bool
	defaults map[string]bool
	rollout  map[string]uint32
}

func NewFlagStore() *FlagStore {
	return &FlagStore{
		flags:    map[string]bool{"dark-mode": true},
		defaults: map[string]bool{"new-checkout": false},
		rollout:  map[string]uint32{"new-checkout": 20},
	}
}

func (s *FlagStore) Enabled(name, user string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if v, ok := s.flags[name]; ok {
		return v
	}
	if pct, ok := s.rollout[name]; ok {
		if bucket(user) < pct {
			return true
		}
	}
	return s.defaultFor(name)
}

func (s *FlagStore) defaultFor(name string) bool {
	s.mu.RLock() //stuck:default
	defer s.mu.RUnlock()
	return s.defaults[name]
}

func (s *FlagStore) Replace(flags map[string]bool) {
	s.mu.Lock() //stuck:replace
	defer s.mu.Unlock()
	s.flags = flags
}

func bucket(user string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(user))
	time.Sleep(30 * time.Millisecond) // stands in for the remote segment lookup
	return h.Sum32() % 100
}

func refreshLoop(s *FlagStore, every time.Duration) {
	for {
		time.Sleep(every)
		s.Replace(map[string]bool{"dark-mode": true, "beta-search": false})
	}
}

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	s := NewFlagStore()
	go refreshLoop(s, 10*time.Millisecond)
	fmt.Println("new-checkout for user-42:", s.Enabled("new-checkout", "user-42"))
	<-stop
}
