// Package kvserver: an idle net/http key-value server on 127.0.0.1 after three client requests, its
// keep-alive connections open; nothing is stuck.
//
// From the independent held-out evaluation (13 programs): the code is the evaluator's, with package
// main renamed and //stuck markers added; every line keeps its number, so the sites of its truth
// file still hold.
package kvserver
