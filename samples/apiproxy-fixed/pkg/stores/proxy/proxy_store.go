// Package proxy is the store that proxies list/watch calls to the upstream
// API server for every resource type.
package proxy

import (
	"context"
	"fmt"
	"log"
	"os"
	"strconv"

	"example.com/apiproxy/pkg/meta"
	"example.com/apiproxy/pkg/types"
	"example.com/apiproxy/pkg/upstream"
	"example.com/apiproxy/pkg/watch"
	"golang.org/x/sync/errgroup"
)

const watchTimeoutEnv = "PROXY_WATCH_TIMEOUT_SECONDS"

var debug = os.Getenv("PROXY_DEBUG") != ""

// RelationshipNotifier reports changes of related resources (optional).
type RelationshipNotifier interface {
	OnInboundRelationshipChange(ctx context.Context, schema *types.APISchema, namespace string) <-chan *watch.Unstructured
}

// Store proxies requests to the upstream API server.
type Store struct {
	client   *upstream.Client
	notifier RelationshipNotifier
}

func NewProxyStore(client *upstream.Client) *Store {
	return &Store{client: client}
}

func debugf(format string, args ...interface{}) {
	if debug {
		log.Printf(format, args...)
	}
}

// Names is a set of resource names a restricted user may see.
type Names map[string]struct{}

func (n Names) Has(name string) bool { _, ok := n[name]; return ok }

func returnErr(err error, c chan watch.Event) {
	c <- watch.Event{
		Type: watch.Error,
		Object: &watch.Status{
			Message: err.Error(),
		},
	}
}

func (s *Store) listAndWatch(apiOp *types.APIRequest, client *upstream.Client, schema *types.APISchema, w types.WatchRequest, result chan watch.Event) {
	rev := w.Revision
	if rev == "-1" || rev == "0" {
		rev = ""
	}

	timeout := int64(60 * 30)
	timeoutSetting := os.Getenv(watchTimeoutEnv)
	if timeoutSetting != "" {
		userSetTimeout, err := strconv.Atoi(timeoutSetting)
		if err != nil {
			debugf("could not parse %s environment variable, error: %v", watchTimeoutEnv, err)
		} else {
			timeout = int64(userSetTimeout)
		}
	}
	watcher, err := client.Watch(apiOp.Context(), schema.ID, upstream.ListOptions{
		Watch:           true,
		TimeoutSeconds:  &timeout,
		ResourceVersion: rev,
	})
	if err != nil {
		returnErr(fmt.Errorf("stopping watch for %s: %w", schema.ID, err), result)
		return
	}
	defer watcher.Stop()
	debugf("opening watcher for %s", schema.ID)

	eg, ctx := errgroup.WithContext(apiOp.Context())

	go func() {
		<-ctx.Done()
		watcher.Stop()
	}()

	if s.notifier != nil {
		eg.Go(func() error {
			for rel := range s.notifier.OnInboundRelationshipChange(ctx, schema, apiOp.Namespace) {
				result <- watch.Event{Type: watch.Modified, Object: rel}
			}
			return fmt.Errorf("closed")
		})
	}

	eg.Go(func() error {
		for event := range watcher.ResultChan() {
			if event.Type == watch.Error {
				if status, ok := event.Object.(*watch.Status); ok {
					debugf("event watch error: %s", status.Message)
					returnErr(fmt.Errorf("event watch error: %s", status.Message), result)
				} else {
					debugf("event watch error: could not decode event object %T", event.Object)
				}
				continue
			}
			result <- event
		}
		return fmt.Errorf("closed")
	})

	_ = eg.Wait()
	return
}

// Watch is the unrestricted watch (admins, or users allowed to see everything).
func (s *Store) Watch(apiOp *types.APIRequest, schema *types.APISchema, w types.WatchRequest) (chan watch.Event, error) {
	return s.watch(apiOp, schema, w, s.client)
}

// WatchNames is the watch of a user who may only see some names.
func (s *Store) WatchNames(apiOp *types.APIRequest, schema *types.APISchema, w types.WatchRequest, names Names) (chan watch.Event, error) {
	c, err := s.watch(apiOp, schema, w, s.client)
	if err != nil {
		return nil, err
	}

	result := make(chan watch.Event)
	go func() {
		defer close(result)
		for item := range c {
			if item.Type == watch.Error {
				if status, ok := item.Object.(*watch.Status); ok {
					debugf("WatchNames received error: %s", status.Message)
				} else {
					debugf("WatchNames received error: %v", item)
				}
				continue
			}

			m, err := meta.Accessor(item.Object)
			if err != nil {
				debugf("WatchNames cannot process unexpected object: %s", err)
				continue
			}

			if names.Has(m.GetName()) {
				result <- item
			}
		}
	}()

	return result, nil
}

func (s *Store) watch(apiOp *types.APIRequest, schema *types.APISchema, w types.WatchRequest, client *upstream.Client) (chan watch.Event, error) {
	result := make(chan watch.Event)
	go func() {
		s.listAndWatch(apiOp, client, schema, w, result)
		debugf("closing watcher for %s", schema.ID)
		close(result)
	}()
	return result, nil
}
