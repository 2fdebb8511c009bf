// Package graph: Link write-locks its own node, then read-locks the peer to copy its edges. Linking
// a->b and b->a at once: each holds its RWMutex for writing and waits to read the other's.
package graph

import (
	"sync"
	"time"
)

type Node struct {
	id    int
	edges []int
	state struct {
		sync.RWMutex
		version int
	}
}

func NewNode(id int) *Node { return &Node{id: id} }

func (n *Node) peerEdges(peer *Node) []int {
	peer.state.RLock() //stuck:peer
	defer peer.state.RUnlock()
	return append([]int(nil), peer.edges...)
}

func (n *Node) Link(peer *Node) {
	n.state.Lock()
	defer n.state.Unlock()
	n.state.version++
	time.Sleep(20 * time.Millisecond)
	n.edges = append(n.edges, peer.id)
	n.edges = append(n.edges, n.peerEdges(peer)...)
}
