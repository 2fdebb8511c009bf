// Package device: flash starts powerOn, which Broadcasts after 5 ms, and only then (after a 25 ms
// image check) calls awaitBoot, which waits on the Cond without checking d.up: the Broadcast is
// lost and the Wait lasts for ever.
//
// From the independent held-out evaluation (13 programs): the code is the evaluator's, with package
// main renamed and //stuck markers added; every line keeps its number, so the sites of its truth
// file still hold.
package device
