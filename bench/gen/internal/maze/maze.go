// Package maze parks goroutines on distinct stacks cheaply: each walks a path through four methods
// (in four files) spelled by the digits of its number in base 4, 8-10 levels deep, then waits on
// the one channel of the one Maze they all share. Every number below 4^8 has its own path: tens of
// thousands of distinct stacks from one small program, every goroutine waiting on one channel
// address through one receiver address (the worst case for anything that pairs goroutines by the
// objects they share).
package maze

import "sync"

// Maze is the one object every walker's frames print as their receiver.
type Maze struct {
	gate    chan int
	Started sync.WaitGroup
}

func New() *Maze { return &Maze{gate: make(chan int)} }

// turns are the four methods a path goes through, by base-4 digit (set in init: each refers to it).
var turns [4]func(m *Maze, path, levels int)

func init() {
	turns = [4]func(m *Maze, path, levels int){(*Maze).north, (*Maze).south, (*Maze).east, (*Maze).west}
}

// Walk parks the calling goroutine on the path of walker n: the base-4 digits of n, lowest first,
// for 8-10 levels (8 digits tell apart every n below 65,536; the levels past them go north).
func (m *Maze) Walk(n int) {
	turns[n%4](m, n/4, 7+n%3)
}

// park waits on the gate, which never opens.
//
//go:noinline
func (m *Maze) park() {
	m.Started.Done()
	<-m.gate
}
