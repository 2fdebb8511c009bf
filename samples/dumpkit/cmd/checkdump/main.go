// Command checkdump verifies a dump file against a sample's expected.json.
//
//	checkdump -expect expected.json -file goroutine.debug2.txt            (pprof dump: top-level total/groups)
//	checkdump -expect expected.json -file crash.txt -trace crash.txt       (traceback: traces[name])
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"leakscope.local/dumpkit"
)

func main() {
	expect := flag.String("expect", "expected.json", "expected.json")
	file := flag.String("file", "", "dump file")
	trace := flag.String("trace", "", "key in expected.traces (text traceback files)")
	skip := flag.String("skip-contains", "", "a `contains` string not to require (it names frames of one Go version)")
	flag.Parse()
	exp, err := dumpkit.LoadExpected(*expect)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	b, err := os.ReadFile(*file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if strings.HasSuffix(*file, ".jsonl") {
		b = testJSONOutput(b)
	}
	var d *dumpkit.Dump
	total, atLeast, groups := exp.Total, exp.TotalAtLeast, exp.Groups
	var contains []string
	switch {
	case *trace != "":
		t, ok := exp.Traces[*trace]
		if !ok {
			fmt.Fprintf(os.Stderr, "no traces[%q] in %s\n", *trace, *expect)
			os.Exit(2)
		}
		total, atLeast, groups, contains = t.Total, t.TotalAtLeast, t.Groups, t.Contains
		d = dumpkit.ParseTraceback(b)
	case strings.HasSuffix(*file, ".pb.gz"):
		d, err = dumpkit.ParseDebug0(b)
	case strings.Contains(string(b[:min(len(b), 200)]), " profile: total "):
		d, err = dumpkit.ParseDebug1(b)
	default:
		d = dumpkit.ParseTraceback(b)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	errs := dumpkit.Check(d, total, atLeast, groups)
	for _, c := range contains {
		if c != *skip && !strings.Contains(string(b), c) {
			errs = append(errs, fmt.Errorf("%s does not contain %q", *file, c))
		}
	}
	for _, e := range errs {
		fmt.Fprintf(os.Stderr, "%s: %v\n", *file, e)
	}
	if len(errs) > 0 {
		os.Exit(1)
	}
	fmt.Printf("ok %s (%s, total %d, %d groups)\n", *file, d.Format, d.Total, len(groups))
}

// testJSONOutput concatenates the Output fields of `go test -json` events.
func testJSONOutput(b []byte) []byte {
	var out []byte
	for _, line := range strings.Split(string(b), "\n") {
		var ev struct{ Output string }
		if json.Unmarshal([]byte(line), &ev) == nil {
			out = append(out, ev.Output...)
		}
	}
	return out
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
