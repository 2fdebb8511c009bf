package dumpkit

import (
	"fmt"
	"regexp"
	"strings"
)

// moduleVersion is the `@version` a -trimpath build prints after a dependency's module path
// (leakscope.local/dumpkit@v0.0.0/harness.go); membership ignores it on both sides.
var moduleVersion = regexp.MustCompile(`@v[^/]*/`)

// Matches reports whether frame f is the group's identifying frame: same
// function, same line (any line when g.Line is 0), and a file path that ends with "/"+g.File (or equals it),
// module versions aside.
func (g *Group) Matches(f Frame) bool {
	file, want := moduleVersion.ReplaceAllString(f.File, "/"), moduleVersion.ReplaceAllString(g.File, "/")
	return f.Function == g.Function && (g.Line == 0 || f.Line == g.Line) &&
		(file == want || strings.HasSuffix(file, "/"+want))
}

// UserStack is the function names of a stack without "runtime." frames,
// innermost first: the shape that is identical in all three formats.
func UserStack(s Stack) []string {
	var out []string
	for _, f := range s.Frames {
		if strings.HasPrefix(f.Function, "runtime.") {
			continue
		}
		out = append(out, f.Function)
	}
	return out
}

// Check verifies a parsed dump against the expected totals and groups.
// States, createdBy and goroutine-level facts are only checked on debug2/traceback dumps.
func Check(d *Dump, total, totalAtLeast *int, groups []Group) []error {
	var errs []error
	if total != nil && d.Total != *total {
		errs = append(errs, fmt.Errorf("%s: total %d, want %d", d.Format, d.Total, *total))
	}
	if totalAtLeast != nil && d.Total < *totalAtLeast {
		errs = append(errs, fmt.Errorf("%s: total %d, want >= %d", d.Format, d.Total, *totalAtLeast))
	}
	if d.Format != "debug2" {
		sum := 0
		for _, s := range d.Stacks {
			sum += s.Count
		}
		if sum != d.Total {
			errs = append(errs, fmt.Errorf("%s: records sum to %d but total is %d", d.Format, sum, d.Total))
		}
	}
	counts := make([]int, len(groups))
	for _, s := range d.Stacks {
		matched := -1
		for gi := range groups {
			g := &groups[gi]
			hit := false
			for _, f := range s.Frames {
				if g.Matches(f) {
					hit = true
					break
				}
			}
			if !hit {
				continue
			}
			if matched >= 0 {
				errs = append(errs, fmt.Errorf("%s: a stack matches groups %q and %q", d.Format, groups[matched].ID, g.ID))
			}
			matched = gi
			counts[gi] += s.Count
			if d.Format == "debug2" && g.State != "" && s.State != g.State {
				errs = append(errs, fmt.Errorf("%s: group %s: goroutine %d state %q, want %q", d.Format, g.ID, s.ID, s.State, g.State))
			}
			if d.Format == "debug2" && g.CreatedBy != "" && s.CreatedBy != g.CreatedBy {
				errs = append(errs, fmt.Errorf("%s: group %s: goroutine %d created by %q, want %q", d.Format, g.ID, s.ID, s.CreatedBy, g.CreatedBy))
			}
			if g.Stack != nil {
				us := UserStack(s)
				if strings.Join(us, "\n") != strings.Join(g.Stack, "\n") {
					errs = append(errs, fmt.Errorf("%s: group %s: stack\n\t%s\nwant\n\t%s", d.Format, g.ID, strings.Join(us, "\n\t"), strings.Join(g.Stack, "\n\t")))
				}
			}
			if d.Format != "debug2" {
				for k, v := range g.Labels {
					if s.Labels[k] != v {
						errs = append(errs, fmt.Errorf("%s: group %s: label %s=%q, want %q", d.Format, g.ID, k, s.Labels[k], v))
					}
				}
			}
		}
	}
	for gi, g := range groups {
		if counts[gi] != g.Count {
			errs = append(errs, fmt.Errorf("%s: group %s (%s %s:%d): count %d, want %d", d.Format, g.ID, g.Function, g.File, g.Line, counts[gi], g.Count))
		}
	}
	if len(errs) > 12 {
		errs = append(errs[:12], fmt.Errorf("... %d more", len(errs)-12))
	}
	return errs
}
