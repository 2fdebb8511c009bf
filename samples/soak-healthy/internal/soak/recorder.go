// Package soak takes the series of goroutine snapshots of a soak test: at a
// fixed interval, while the load keeps running, it captures the goroutine
// profile (debug=1 text, or debug=0 protobuf for some), parses its own
// capture with dumpkit and retries until the goroutines blocked at the leak
// site are exactly the number the service says it abandoned. Only then is the
// snapshot written, named by its capture time.
package soak

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"leakscope.local/dumpkit"
)

// Snapshot is one written capture and what the program knew about it.
type Snapshot struct {
	File       string `json:"file"`
	Format     string `json:"format"`
	CapturedAt string `json:"capturedAt"`
	// UnixMs is CapturedAt in ms since the epoch (the time in the file name).
	UnixMs int64 `json:"unixMs"`
	Total  int   `json:"total"`
	// Leaked is the service's own count of abandoned lookups at capture time
	// (read before and after the capture, equal); the capture holds exactly
	// that many goroutines at the leak site.
	Leaked int64 `json:"leaked"`
	// Counts per series group, read from this capture with dumpkit's parser
	// (membership: any frame with that function, file suffix and line; line 0
	// = any line). "other" is everything else.
	Counts   map[string]int `json:"counts"`
	Requests int64          `json:"requests"`
	Attempts int            `json:"attempts"`
}

// Recorder writes the series.
type Recorder struct {
	Dir      string
	Groups   []dumpkit.Group
	LeakID   string
	Leaked   func() int64
	Requests func() int64
	Taken    []Snapshot
}

// Reset empties the series folder.
func (r *Recorder) Reset() error {
	if err := os.RemoveAll(r.Dir); err != nil {
		return err
	}
	return os.MkdirAll(r.Dir, 0o755)
}

// capture is the only call site of WriteTo: the capturing goroutine has one
// known frame in every snapshot.
func capture(debug int) []byte {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, debug); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Take captures one snapshot (debug 0 or 1), verifies it and writes it.
func (r *Recorder) Take(debug int) error {
	var errs []string
	for attempt := 1; attempt <= 400; attempt++ {
		if attempt > 1 {
			time.Sleep(2 * time.Millisecond)
		}
		before := r.Leaked()
		at := time.Now().UTC().Truncate(time.Millisecond)
		b := capture(debug)
		after := r.Leaked()
		var d *dumpkit.Dump
		var err error
		if debug == 0 {
			d, err = dumpkit.ParseDebug0(b)
		} else {
			d, err = dumpkit.ParseDebug1(b)
		}
		if err != nil {
			return fmt.Errorf("parse own capture: %w", err)
		}
		counts := Count(d, r.Groups)
		if before != after || int64(counts[r.LeakID]) != before {
			errs = append(errs, fmt.Sprintf("leaked %d..%d, %d at the leak site", before, after, counts[r.LeakID]))
			continue
		}
		ext, format := ".txt", "debug1"
		if debug == 0 {
			ext, format = ".pb.gz", "debug0"
		}
		name := "goroutine-" + at.Format("20060102T150405.000Z") + ext
		if err := os.WriteFile(filepath.Join(r.Dir, name), b, 0o644); err != nil {
			return err
		}
		r.Taken = append(r.Taken, Snapshot{
			File: name, Format: format, CapturedAt: at.Format(time.RFC3339Nano), UnixMs: at.UnixMilli(),
			Total: d.Total, Leaked: before, Counts: counts, Requests: r.Requests(), Attempts: attempt,
		})
		return nil
	}
	return fmt.Errorf("no consistent capture after 400 attempts: %s", strings.Join(errs[len(errs)-3:], "; "))
}

// Count sorts the goroutines of a parsed capture into the groups (the first
// group with a matching frame wins) and "other".
func Count(d *dumpkit.Dump, groups []dumpkit.Group) map[string]int {
	out := map[string]int{"other": 0}
	for _, g := range groups {
		out[g.ID] = 0
	}
	for _, s := range d.Stacks {
		id := "other"
	find:
		for _, g := range groups {
			for _, f := range s.Frames {
				if g.Matches(f) {
					id = g.ID
					break find
				}
			}
		}
		out[id] += s.Count
	}
	return out
}

// Series is expected.json's "series" section.
type Series struct {
	Folder     string          `json:"folder"`
	IntervalMs int64           `json:"intervalMs"`
	Groups     []dumpkit.Group `json:"groups"`
	Snapshots  []Snapshot      `json:"snapshots"`
}

// Expected is the whole expected.json of a soak case.
type Expected struct {
	Schema  string        `json:"schema"`
	Case    string        `json:"case"`
	Verdict string        `json:"verdict"`
	Go      string        `json:"go"`
	Files   []string      `json:"files"`
	Leak    *dumpkit.Leak `json:"leak,omitempty"`
	Series  Series        `json:"series"`
	Notes   string        `json:"notes"`
}

// WriteExpected writes expected.json.
func WriteExpected(path string, e *Expected) error {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Verify re-reads every snapshot of expected.json's series and checks the
// counts recorded for it. It is what regenerate.sh runs after the program.
func Verify(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var e Expected
	if err := json.Unmarshal(b, &e); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	dir := filepath.Join(filepath.Dir(path), e.Series.Folder)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var onDisk, listed []string
	for _, en := range entries {
		onDisk = append(onDisk, en.Name())
	}
	var problems []string
	for _, s := range e.Series.Snapshots {
		listed = append(listed, s.File)
		raw, err := os.ReadFile(filepath.Join(dir, s.File))
		if err != nil {
			return err
		}
		var d *dumpkit.Dump
		if s.Format == "debug0" {
			d, err = dumpkit.ParseDebug0(raw)
		} else {
			d, err = dumpkit.ParseDebug1(raw)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.File, err)
		}
		got := Count(d, e.Series.Groups)
		if d.Total != s.Total {
			problems = append(problems, fmt.Sprintf("%s: total %d, want %d", s.File, d.Total, s.Total))
		}
		for id, n := range s.Counts {
			if got[id] != n {
				problems = append(problems, fmt.Sprintf("%s: group %s %d, want %d", s.File, id, got[id], n))
			}
		}
	}
	sort.Strings(onDisk)
	sort.Strings(listed)
	if strings.Join(onDisk, ",") != strings.Join(listed, ",") {
		problems = append(problems, fmt.Sprintf("%s holds %v, expected.json lists %v", dir, onDisk, listed))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}
