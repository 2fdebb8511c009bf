// Package flags: Enabled holds s.mu.RLock and, for a flag in rollout, calls defaultFor, which
// RLocks s.mu again; refreshLoop's Replace queued s.mu.Lock() in between (bucket is slow), so the
// second RLock waits for the writer and the writer for the first RLock.
//
// From the independent held-out evaluation (13 programs): the code is the evaluator's, with package
// main renamed and //stuck markers added; every line keeps its number, so the sites of its truth
// file still hold.
package flags
