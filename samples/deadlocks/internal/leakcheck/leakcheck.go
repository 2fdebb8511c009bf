// Package leakcheck is OUR stand-in for go.uber.org/goleak's VerifyNone (there is no module proxy
// here, so the samples cannot depend on goleak). It prints its report in goleak's format, built from
// the runtime's own runtime.Stack text:
//
//	found unexpected goroutines:
//	[Goroutine N in state S, with F on top of the stack:
//	<stack> Goroutine M in state ...]
//
// Two record shapes, chosen by the Go version running the test, as the two goleak generations print
// them: goleak <= v1.2 keeps each goroutine's `goroutine N [state]:` header line inside the record;
// goleak >= v1.3 (internal/stack.parseStack) drops that header and stops the record after the
// `created by` location. State is the header's bracket text, so it carries `, N minutes` when printed.
// Default filters as goleak's: the running goroutine, testing's own waiters (state `chan receive`
// with testing.RunTests / (*T).Run / (*T).Parallel on top) and os/signal's loop.
package leakcheck

import (
	"bufio"
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

type stack struct {
	id            int
	state         string
	firstFunction string
	allFunctions  map[string]bool
	full          string
}

func (s stack) String() string {
	return fmt.Sprintf("Goroutine %v in state %v, with %v on top of the stack:\n%s", s.id, s.state, s.firstFunction, s.full)
}

// VerifyNone fails t when goroutines other than the caller and testing's own are still alive.
func VerifyNone(t testing.TB) {
	t.Helper()
	if err := Find(); err != nil {
		t.Error(err)
	}
}

// Find retries with exponential backoff (1µs doubling, at most 100ms a sleep, 20 retries, as goleak
// does) and returns the goroutines left over.
func Find() error {
	cur := current().id
	var stacks []stack
	for i := 0; ; i++ {
		stacks = stacks[:0]
		for _, s := range all() {
			if s.id == cur || ignored(s) {
				continue
			}
			stacks = append(stacks, s)
		}
		if len(stacks) == 0 {
			return nil
		}
		if i >= 20 {
			break
		}
		d := time.Duration(int(time.Microsecond) << uint(i))
		if d > 100*time.Millisecond {
			d = 100 * time.Millisecond
		}
		time.Sleep(d)
	}
	return fmt.Errorf("found unexpected goroutines:\n%s", stacks)
}

func ignored(s stack) bool {
	switch s.firstFunction {
	case "testing.RunTests", "testing.(*T).Run", "testing.(*T).Parallel", "testing.runFuzzing", "testing.runFuzzTests":
		return strings.HasPrefix(s.state, "chan receive")
	case "os/signal.signal_recv", "os/signal.loop":
		return s.allFunctions["os/signal.loop"]
	case "runtime.ReadTrace":
		return true
	}
	return false
}

// newShape: goleak >= v1.3 record (no header line inside); Go >= 1.21 runs get it.
func newShape() bool {
	v := strings.TrimPrefix(runtime.Version(), "go1.")
	if i := strings.IndexByte(v, '.'); i >= 0 {
		v = v[:i]
	}
	n, err := strconv.Atoi(v)
	return err == nil && n >= 21
}

func current() stack { return parse(buffer(false))[0] }

func all() []stack { return parse(buffer(true)) }

func buffer(all bool) []byte {
	for n := 64 << 10; ; n *= 2 {
		b := make([]byte, n)
		if m := runtime.Stack(b, all); m < n {
			return b[:m]
		}
	}
}

func parse(trace []byte) []stack {
	var out []stack
	var cur *stack
	var full bytes.Buffer
	done := false // new shape: the record ended at its `created by` location
	flush := func() {
		if cur != nil {
			cur.full = full.String()
			out = append(out, *cur)
		}
		cur, done = nil, false
		full.Reset()
	}
	sc := bufio.NewScanner(bytes.NewReader(trace))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	keepNext := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "goroutine ") {
			flush()
			id, state := header(line)
			cur = &stack{id: id, state: state, allFunctions: map[string]bool{}}
			if !newShape() {
				full.WriteString(line + "\n")
			}
			continue
		}
		if cur == nil {
			continue
		}
		if line == "" {
			if !newShape() {
				flush() // old shape: a blank line ends the record
			}
			continue
		}
		if done {
			continue
		}
		full.WriteString(line + "\n")
		if strings.HasPrefix(line, "\t") {
			if keepNext {
				keepNext = false
				if newShape() {
					done = true
				}
			}
			continue
		}
		if strings.HasPrefix(line, "created by ") {
			keepNext = true
			continue
		}
		if strings.HasPrefix(line, "...") {
			continue
		}
		if i := strings.LastIndexByte(line, '('); i > 0 {
			fn := line[:i]
			cur.allFunctions[fn] = true
			if cur.firstFunction == "" {
				cur.firstFunction = fn
			}
		}
	}
	flush()
	return out
}

// header reads `goroutine 12 [chan send, 1 minutes]:` into 12 and `chan send, 1 minutes`.
func header(line string) (int, string) {
	line = strings.TrimSuffix(line, ":")
	parts := strings.SplitN(line, " ", 3)
	if len(parts) != 3 {
		return 0, ""
	}
	id, _ := strconv.Atoi(parts[1])
	return id, strings.TrimSuffix(strings.TrimPrefix(parts[2], "["), "]")
}
