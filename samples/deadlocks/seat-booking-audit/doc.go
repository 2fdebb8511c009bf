// Package booking: reserveSeat holds v.mu and calls appendAudit, a plain function taking the venue,
// which locks v.mu again: the goroutine waits for itself.
//
// From the independent held-out evaluation (13 programs): the code is the evaluator's, with package
// main renamed and //stuck markers added; every line keeps its number, so the sites of its truth
// file still hold.
package booking
