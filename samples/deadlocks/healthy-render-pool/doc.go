// Package render: a pool of four render workers at rest, ranging over an unbuffered frames channel
// after three frames; nothing is stuck.
//
// From the independent held-out evaluation (13 programs): the code is the evaluator's, with package
// main renamed and //stuck markers added; every line keeps its number, so the sites of its truth
// file still hold.
package render
