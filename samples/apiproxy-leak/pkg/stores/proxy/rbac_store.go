package proxy

import (
	"example.com/apiproxy/pkg/types"
	"example.com/apiproxy/pkg/watch"
)

// Partition is what RBAC allows a user to see of one resource type.
type Partition struct {
	Passthrough bool
	All         bool
	Names       Names
}

type byNameOrNamespaceStore struct {
	*Store
	partition Partition
}

// NewRBACStore routes each call according to the user's partition.
func NewRBACStore(s *Store, p Partition) *byNameOrNamespaceStore {
	return &byNameOrNamespaceStore{Store: s, partition: p}
}

func (b *byNameOrNamespaceStore) Watch(apiOp *types.APIRequest, schema *types.APISchema, wr types.WatchRequest) (chan watch.Event, error) {
	if b.partition.Passthrough || b.partition.All {
		return b.Store.Watch(apiOp, schema, wr)
	}
	return b.Store.WatchNames(apiOp, schema, wr, b.partition.Names)
}
