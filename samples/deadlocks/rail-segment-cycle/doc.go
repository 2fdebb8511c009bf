// Package signalling: three trains each hold their segment and then lock the next one of a loop
// (north -> east -> south -> north): a lock-order cycle of three goroutines, and runLoopSchedule
// waits for them in wg.Wait.
//
// From the independent held-out evaluation (13 programs): the code is the evaluator's, with package
// main renamed and //stuck markers added; every line keeps its number, so the sites of its truth
// file still hold.
package signalling
