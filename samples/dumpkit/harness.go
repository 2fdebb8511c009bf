package dumpkit

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"
)

// Harness holds the flags every sample program accepts.
type Harness struct {
	Out     string
	Expect  string
	Mode    string
	Timeout time.Duration
	start   time.Time
}

// Flags registers -out, -expect, -mode and -timeout and parses the command line.
func Flags() *Harness {
	h := &Harness{start: time.Now()}
	flag.StringVar(&h.Out, "out", ".", "directory to write the dumps into")
	flag.StringVar(&h.Expect, "expect", "", "expected.json (default <out>/expected.json)")
	flag.StringVar(&h.Mode, "mode", "dump", "dump: verify and write goroutine.debug{0,1,2}; wait: verify, print READY and sleep (for SIGQUIT)")
	flag.DurationVar(&h.Timeout, "timeout", 8*time.Second, "give up if the expected state is not reached in time")
	flag.Parse()
	if h.Expect == "" {
		h.Expect = filepath.Join(h.Out, "expected.json")
	}
	return h
}

// writeProfile is the only call site of WriteTo, so the dumping goroutine has
// one known frame in every format.
func writeProfile(debug int) []byte {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, debug); err != nil {
		fail("write profile: %v", err)
	}
	return buf.Bytes()
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "dumpkit: "+format+"\n", args...)
	os.Exit(1)
}

// Finish waits until the process matches expected.json in all three formats,
// then writes the dumps (mode dump) and exits, or prints READY and sleeps
// until killed (mode wait).
func (h *Harness) Finish() {
	exp, err := LoadExpected(h.Expect)
	if err != nil {
		fail("%v", err)
	}
	deadline := h.start.Add(h.Timeout)
	var last []error
	for attempt := 0; ; attempt++ {
		if time.Now().After(deadline) {
			for _, e := range last {
				fmt.Fprintln(os.Stderr, e)
			}
			fail("%s: expected state not reached after %d attempts (NumGoroutine=%d)", exp.Case, attempt, runtime.NumGoroutine())
		}
		if attempt > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		if exp.Total != nil && runtime.NumGoroutine() != *exp.Total {
			last = []error{fmt.Errorf("NumGoroutine %d, want %d", runtime.NumGoroutine(), *exp.Total)}
			continue
		}
		d2 := writeProfile(2)
		d1 := writeProfile(1)
		d0 := writeProfile(0)
		p1, err1 := ParseDebug1(d1)
		p0, err0 := ParseDebug0(d0)
		if err1 != nil || err0 != nil {
			fail("parse own dumps: %v %v", err1, err0)
		}
		last = nil
		last = append(last, Check(ParseTraceback(d2), exp.Total, exp.TotalAtLeast, exp.Groups)...)
		last = append(last, Check(p1, exp.Total, exp.TotalAtLeast, exp.Groups)...)
		last = append(last, Check(p0, exp.Total, exp.TotalAtLeast, exp.Groups)...)
		if len(last) > 0 {
			continue
		}
		if h.Mode == "wait" {
			fmt.Println("READY")
			os.Stdout.Sync()
			Park()
		}
		for name, b := range map[string][]byte{
			"goroutine.debug0.pb.gz": d0,
			"goroutine.debug1.txt":   d1,
			"goroutine.debug2.txt":   d2,
		} {
			if err := os.WriteFile(filepath.Join(h.Out, name), b, 0o644); err != nil {
				fail("%v", err)
			}
		}
		fmt.Fprintf(os.Stderr, "%s: wrote dumps (total %d) after %d attempts, %v\n", exp.Case, p1.Total, attempt+1, time.Since(h.start).Round(time.Millisecond))
		os.Exit(0)
	}
}

// Park blocks the calling goroutine in a sleep (not in a channel operation,
// so the runtime's deadlock detector stays quiet while everything else is
// blocked) until the process is killed.
func Park() {
	for {
		time.Sleep(time.Hour)
	}
}
