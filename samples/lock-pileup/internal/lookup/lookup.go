// Package lookup answers "how often did this peer answer" requests.
package lookup

import "example.com/peerstore/internal/peers"

func Serve(t *peers.Table, id string) int {
	return t.Count(id)
}
