package memberlist

import (
	"testing"
	"time"
)

// An indirect ping retried with the same sequence number installs a second ack handler; the first
// timer reaps the entry, and the second timer's callback (patched: an early return when the entry is
// already gone) returns without unlocking ackLock. The late ack then waits for a lock nobody holds.
func TestIndirectPingRetryReusesSeqNo(t *testing.T) {
	m := &Memberlist{ackHandlers: make(map[uint32]*ackHandler)}
	m.setAckHandler(7, func([]byte, time.Time) {}, 10*time.Millisecond)
	m.setAckHandler(7, func([]byte, time.Time) {}, 20*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	m.invokeAckHandler(ackResp{SeqNo: 7}, time.Now())
}
