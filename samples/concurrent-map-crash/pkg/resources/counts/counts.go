// Package counts keeps per-type, per-namespace object counts and streams the
// changed counts to UI watchers.
package counts

import (
	"sync"

	"example.com/clusteragent/pkg/clustercache"
)

type Count struct {
	ID     string               `json:"id,omitempty"`
	Counts map[string]ItemCount `json:"counts"`
}

type Summary struct {
	Count         int            `json:"count,omitempty"`
	States        map[string]int `json:"states,omitempty"`
	Error         int            `json:"errors,omitempty"`
	Transitioning int            `json:"transitioning,omitempty"`
}

type ItemCount struct {
	Summary    Summary            `json:"summary,omitempty"`
	Namespaces map[string]Summary `json:"namespaces,omitempty"`
	Revision   int                `json:"-"`
}

// APIEvent is what the websocket writer serializes.
type APIEvent struct {
	Name         string      `json:"name"`
	ResourceType string      `json:"resourceType"`
	Object       interface{} `json:"data"`
}

// Store serves the "count" resource.
type Store struct {
	cache *clustercache.Cache
}

func NewStore(c *clustercache.Cache) *Store { return &Store{cache: c} }

// Watch streams changed counts, debounced.
func (s *Store) Watch() chan APIEvent {
	var (
		result    = make(chan Count, 100)
		counts    = map[string]ItemCount{}
		countLock sync.Mutex
	)

	onChange := func(add bool, gvk string, namespace string, state string) {
		countLock.Lock()
		defer countLock.Unlock()

		itemCount := counts[gvk]
		summary := Summary{Count: 1, States: map[string]int{state: 1}}
		if add {
			itemCount = addCounts(itemCount, namespace, summary)
		} else {
			itemCount = removeCounts(itemCount, namespace, summary)
		}
		itemCount.Revision++
		counts[gvk] = itemCount

		changedCount := map[string]ItemCount{
			gvk: itemCount,
		}
		result <- Count{ID: "count", Counts: changedCount}
	}

	s.cache.OnAdd(func(gvk, ns, state string) { onChange(true, gvk, ns, state) })
	s.cache.OnRemove(func(gvk, ns, state string) { onChange(false, gvk, ns, state) })

	return countsBuffer(result)
}

func addCounts(itemCount ItemCount, namespace string, summary Summary) ItemCount {
	if itemCount.Namespaces == nil {
		itemCount.Namespaces = map[string]Summary{}
	}
	itemCount.Summary = addSummary(itemCount.Summary, summary)
	itemCount.Namespaces[namespace] = addSummary(itemCount.Namespaces[namespace], summary)
	return itemCount
}

func removeCounts(itemCount ItemCount, namespace string, summary Summary) ItemCount {
	if itemCount.Namespaces == nil {
		itemCount.Namespaces = map[string]Summary{}
	}
	itemCount.Summary = removeSummary(itemCount.Summary, summary)
	itemCount.Namespaces[namespace] = removeSummary(itemCount.Namespaces[namespace], summary)
	return itemCount
}

func addSummary(counts Summary, summary Summary) Summary {
	counts.Count += summary.Count
	for state, n := range summary.States {
		if counts.States == nil {
			counts.States = map[string]int{}
		}
		counts.States[state] += n
	}
	return counts
}

func removeSummary(counts Summary, summary Summary) Summary {
	counts.Count -= summary.Count
	for state, n := range summary.States {
		if counts.States == nil {
			counts.States = map[string]int{}
		}
		counts.States[state] -= n
	}
	return counts
}
