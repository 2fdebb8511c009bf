// Package server writes API events to websocket clients.
package server

import (
	"encoding/json"
	"io"

	"example.com/clusteragent/pkg/resources/counts"
)

// WebSocketWriter serializes events for one websocket connection.
type WebSocketWriter struct {
	Conn io.Writer
}

func (w *WebSocketWriter) Run(events chan counts.APIEvent) {
	go w.writeLoop(events)
}

func (w *WebSocketWriter) writeLoop(events chan counts.APIEvent) {
	for event := range events {
		data, err := json.Marshal(event)
		if err != nil {
			continue
		}
		_, _ = w.Conn.Write(data)
	}
}

// IdleSession is a websocket session subscribed to a quiet resource type.
func IdleSession(events chan counts.APIEvent) {
	for range events {
	}
}
