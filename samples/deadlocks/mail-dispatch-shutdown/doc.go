// Package dispatch: Shutdown closes quit and waits, but never closes jobs; the workers range over
// jobs for ever, so wg.Wait never returns.
//
// From the independent held-out evaluation (13 programs): the code is the evaluator's, with package
// main renamed and //stuck markers added; every line keeps its number, so the sites of its truth
// file still hold.
package dispatch
