package counts

import "time"

var debounceDuration = 2 * time.Millisecond

func countsBuffer(c chan Count) chan APIEvent {
	result := make(chan APIEvent)
	go debounceCounts(result, c)
	return result
}

// debounceCounts merges counts received within debounceDuration.
func debounceCounts(result chan APIEvent, input chan Count) {
	t := time.NewTicker(debounceDuration)
	defer t.Stop()
	defer close(result)

	firstCount, fOk := <-input
	if !fOk {
		return
	}
	result <- toAPIEvent(firstCount)

	var currentCount *Count
	for {
		select {
		case count, ok := <-input:
			if !ok {
				return
			}
			if currentCount == nil {
				currentCount = &count
			} else {
				for id, itemCount := range count.Counts {
					currentCount.Counts[id] = itemCount
				}
			}
		case <-t.C:
			if currentCount != nil {
				result <- toAPIEvent(*currentCount)
				currentCount = nil
			}
		}
	}
}

func toAPIEvent(c Count) APIEvent {
	return APIEvent{Name: "resource.change", ResourceType: "count", Object: c}
}
