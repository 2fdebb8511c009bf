package feed

import "context"

// SubscribeFiltered delivers only the records allow accepts.
func (h *Hub) SubscribeFiltered(ctx context.Context, topic string, cursor int64, allow func(Record) bool) <-chan Notification {
	upstream := h.open(ctx, topic, cursor)
	filtered := make(chan Notification)
	go func() {
		defer close(filtered)
		for n := range upstream {
			rec, ok := n.Payload.(Record)
			if !ok {
				return
			}
			if allow(rec) {
				filtered <- n
			}
		}
	}()
	return filtered
}
