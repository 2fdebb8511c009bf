// Package types holds the request and schema types shared by the stores.
package types

import "context"

// APIRequest is one API call (or one websocket subscription) on behalf of a user.
type APIRequest struct {
	Ctx       context.Context
	User      string
	Namespace string
}

func (a *APIRequest) Context() context.Context { return a.Ctx }

// APISchema describes one resource type.
type APISchema struct {
	ID string
}

// WatchRequest is what the client asked for when it subscribed.
type WatchRequest struct {
	Revision string
	ID       string
}
