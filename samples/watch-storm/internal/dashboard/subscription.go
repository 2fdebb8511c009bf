// Package dashboard is the browser side: one subscription per resource type
// per open tab, re-subscribing whenever the server ends the watch.
package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
)

type event struct {
	Type   string `json:"type"`
	Object struct {
		Message  string `json:"message"`
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	} `json:"object"`
}

// Stats are shared by all subscriptions.
type Stats struct {
	Resubscribes atomic.Int64
	Errors       atomic.Int64
}

// Subscription watches one type for one tab. Each tab has its own connection.
type Subscription struct {
	Base   string
	Type   string
	Client *http.Client
	Stats  *Stats
	// cache of items the tab has seen, by resourceVersion
	itemRevisions []int64
}

// Start runs the subscription loop.
func (s *Subscription) Start(ctx context.Context) {
	s.itemRevisions = []int64{41, 97, 12} // items listed long ago
	go s.run(ctx)
}

// nextResourceVersion is the bug: it uses the newest *item* revision + 1,
// not the list's revision, so after compaction it is always too old.
func (s *Subscription) nextResourceVersion() int64 {
	revision := int64(0)
	for _, rv := range s.itemRevisions {
		if rv > revision {
			revision = rv
		}
	}
	return revision + 1
}

func (s *Subscription) run(ctx context.Context) {
	for ctx.Err() == nil {
		err := s.watchOnce(ctx, s.nextResourceVersion())
		if err != nil {
			s.Stats.Errors.Add(1)
		}
		// resource.stop: the UI subscribes again at once, same revision.
		s.Stats.Resubscribes.Add(1)
	}
}

func (s *Subscription) watchOnce(ctx context.Context, revision int64) error {
	url := fmt.Sprintf("%s/watch/%s?resourceVersion=%s", s.Base, s.Type, strconv.FormatInt(revision, 10))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var ev event
		if err := dec.Decode(&ev); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if ev.Type == "ERROR" {
			io.Copy(io.Discard, resp.Body)
			return fmt.Errorf("watch %s: %s", s.Type, ev.Object.Message)
		}
	}
}
