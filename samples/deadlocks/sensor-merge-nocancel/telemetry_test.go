package telemetry

import "testing"

func TestFirstAlarm(t *testing.T) {
	a := &Aggregator{}
	defer a.Stop()
	r, ok := a.FirstAlarm(30)
	if !ok || r.Sensor == "" {
		t.Fatalf("no alarm: %+v", r)
	}
}

// TestSoakFirstAlarm runs twelve aggregators. Each merge goroutine stays blocked in the send at line
// 44 or at line 50: its select picks at random which source it reads after the alarm, so a single
// run (the evaluator's main) shows one of the two lines; twelve show both (all twelve at the same
// line: probability 2/4096). Stop of the first aggregator then waits for ever.
func TestSoakFirstAlarm(t *testing.T) {
	var all []*Aggregator
	for i := 0; i < 12; i++ {
		a := &Aggregator{}
		a.FirstAlarm(30)
		all = append(all, a)
	}
	for _, a := range all {
		a.Stop()
	}
}
