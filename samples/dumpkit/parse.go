package dumpkit

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Frame is one (possibly inlined) stack frame.
type Frame struct {
	Function string
	File     string
	Line     int
}

// Stack is one goroutine (debug=2, traceback) or one record/sample of
// identical goroutines (debug=1, debug=0) with its multiplicity.
type Stack struct {
	Count     int
	ID        int    // debug=2 only
	State     string // debug=2 only: wait reason / status without ", N minutes" etc.
	Frames    []Frame
	CreatedBy string
	Labels    map[string]string
}

// Dump is a parsed goroutine dump.
type Dump struct {
	Format string // "debug0", "debug1", "debug2" (traceback)
	Total  int    // header total (debug1), number of goroutine blocks (debug2), sum of values (debug0)
	Stacks []Stack
}

var headerRE = regexp.MustCompile(`^goroutine (\d+) \[([^\]]*)\]:$`)

// ParseTraceback parses runtime traceback text: pprof debug=2, panic/fatal
// output, SIGQUIT dumps and go test timeouts. Text outside goroutine blocks
// is ignored.
func ParseTraceback(b []byte) *Dump {
	d := &Dump{Format: "debug2"}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur *Stack
	var pendingFunc string
	havePending := false
	flush := func() {
		if cur != nil {
			d.Stacks = append(d.Stacks, *cur)
			cur = nil
		}
		havePending = false
	}
	for sc.Scan() {
		line := sc.Text()
		if m := headerRE.FindStringSubmatch(line); m != nil {
			flush()
			id, _ := strconv.Atoi(m[1])
			st := m[2]
			if i := strings.Index(st, ", "); i >= 0 {
				st = st[:i]
			}
			st = strings.TrimSuffix(st, " (scan)")
			cur = &Stack{Count: 1, ID: id, State: st}
			continue
		}
		if cur == nil {
			continue
		}
		if line == "" {
			flush()
			continue
		}
		if strings.HasPrefix(line, "\t") {
			if !havePending {
				continue
			}
			havePending = false
			f := strings.TrimPrefix(line, "\t")
			if i := strings.Index(f, " "); i >= 0 {
				f = f[:i]
			}
			file, ln := splitFileLine(f)
			if strings.HasPrefix(pendingFunc, "created by ") {
				cur.CreatedBy = strings.TrimPrefix(pendingFunc, "created by ")
				if i := strings.Index(cur.CreatedBy, " in goroutine "); i >= 0 {
					cur.CreatedBy = cur.CreatedBy[:i]
				}
				continue
			}
			cur.Frames = append(cur.Frames, Frame{Function: pendingFunc, File: file, Line: ln})
			continue
		}
		if strings.HasPrefix(line, "created by ") {
			pendingFunc, havePending = line, true
			continue
		}
		if strings.HasPrefix(line, "...") {
			continue
		}
		// function line: strip the argument list.
		fn := line
		if strings.HasSuffix(fn, ")") {
			if i := strings.LastIndex(fn, "("); i > 0 {
				fn = fn[:i]
			}
		}
		pendingFunc, havePending = fn, true
	}
	flush()
	d.Total = len(d.Stacks)
	return d
}

func splitFileLine(s string) (string, int) {
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return s, 0
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return s, 0
	}
	return s[:i], n
}

var (
	debug1HeaderRE = regexp.MustCompile(`^(\S+) profile: total (\d+)$`)
	debug1RecordRE = regexp.MustCompile(`^(\d+) @( 0x[0-9a-f]+)+$`)
	labelRE        = regexp.MustCompile(`"((?:[^"\\]|\\.)*)":"((?:[^"\\]|\\.)*)"`)
	tabsRE         = regexp.MustCompile(`\t+`)
)

// ParseDebug1 parses `goroutine profile: total N` text.
func ParseDebug1(b []byte) (*Dump, error) {
	d := &Dump{Format: "debug1", Total: -1}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur *Stack
	for sc.Scan() {
		line := sc.Text()
		if m := debug1HeaderRE.FindStringSubmatch(line); m != nil {
			d.Total, _ = strconv.Atoi(m[2])
			continue
		}
		if m := debug1RecordRE.FindStringSubmatch(line); m != nil {
			if cur != nil {
				d.Stacks = append(d.Stacks, *cur)
			}
			n, _ := strconv.Atoi(m[1])
			cur = &Stack{Count: n}
			continue
		}
		if cur == nil {
			continue
		}
		if strings.HasPrefix(line, "# labels: ") {
			cur.Labels = map[string]string{}
			for _, m := range labelRE.FindAllStringSubmatch(line, -1) {
				k, _ := strconv.Unquote(`"` + m[1] + `"`)
				v, _ := strconv.Unquote(`"` + m[2] + `"`)
				cur.Labels[k] = v
			}
			continue
		}
		if strings.HasPrefix(line, "#\t") {
			parts := tabsRE.Split(strings.TrimPrefix(line, "#\t"), -1)
			if len(parts) < 3 {
				continue
			}
			fn := parts[1]
			if i := strings.LastIndex(fn, "+0x"); i >= 0 {
				fn = fn[:i]
			}
			file, ln := splitFileLine(parts[2])
			cur.Frames = append(cur.Frames, Frame{Function: fn, File: file, Line: ln})
		}
	}
	if cur != nil {
		d.Stacks = append(d.Stacks, *cur)
	}
	if d.Total < 0 {
		return nil, fmt.Errorf("debug1: no 'profile: total' header")
	}
	return d, nil
}

// ParseDebug0 decodes a gzipped perftools.profiles.Profile.
func ParseDebug0(b []byte) (*Dump, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	type line struct{ fn, ln uint64 }
	type fnc struct{ name, file uint64 }
	type sample struct {
		locs   []uint64
		values []int64
		labels [][2]uint64
	}
	var (
		strs    []string
		samples []sample
		locs    = map[uint64][]line{}
		funcs   = map[uint64]fnc{}
	)
	err = pbFields(raw, func(num int, wt int, v uint64, data []byte) error {
		switch num {
		case 2: // sample
			var s sample
			err := pbFields(data, func(n, wt int, v uint64, d []byte) error {
				switch n {
				case 1:
					if wt == 2 {
						s.locs = append(s.locs, pbPacked(d)...)
					} else {
						s.locs = append(s.locs, v)
					}
				case 2:
					if wt == 2 {
						for _, x := range pbPacked(d) {
							s.values = append(s.values, int64(x))
						}
					} else {
						s.values = append(s.values, int64(v))
					}
				case 3:
					var k, str uint64
					_ = pbFields(d, func(n, wt int, v uint64, _ []byte) error {
						if n == 1 {
							k = v
						} else if n == 2 {
							str = v
						}
						return nil
					})
					s.labels = append(s.labels, [2]uint64{k, str})
				}
				return nil
			})
			if err != nil {
				return err
			}
			samples = append(samples, s)
		case 4: // location
			var id uint64
			var ls []line
			err := pbFields(data, func(n, wt int, v uint64, d []byte) error {
				switch n {
				case 1:
					id = v
				case 4:
					var l line
					_ = pbFields(d, func(n, wt int, v uint64, _ []byte) error {
						if n == 1 {
							l.fn = v
						} else if n == 2 {
							l.ln = v
						}
						return nil
					})
					ls = append(ls, l)
				}
				return nil
			})
			if err != nil {
				return err
			}
			locs[id] = ls
		case 5: // function
			var id uint64
			var f fnc
			err := pbFields(data, func(n, wt int, v uint64, _ []byte) error {
				switch n {
				case 1:
					id = v
				case 2:
					f.name = v
				case 4:
					f.file = v
				}
				return nil
			})
			if err != nil {
				return err
			}
			funcs[id] = f
		case 6:
			strs = append(strs, string(data))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	str := func(i uint64) string {
		if int(i) < len(strs) {
			return strs[i]
		}
		return ""
	}
	d := &Dump{Format: "debug0"}
	for _, s := range samples {
		st := Stack{}
		if len(s.values) > 0 {
			st.Count = int(s.values[0])
		}
		for _, l := range s.labels {
			if st.Labels == nil {
				st.Labels = map[string]string{}
			}
			st.Labels[str(l[0])] = str(l[1])
		}
		for _, id := range s.locs {
			for _, l := range locs[id] {
				f := funcs[l.fn]
				st.Frames = append(st.Frames, Frame{Function: str(f.name), File: str(f.file), Line: int(l.ln)})
			}
		}
		d.Total += st.Count
		d.Stacks = append(d.Stacks, st)
	}
	return d, nil
}

func pbVarint(b []byte) (uint64, int) {
	var x uint64
	for i := 0; i < len(b) && i < 10; i++ {
		x |= uint64(b[i]&0x7f) << (7 * uint(i))
		if b[i] < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}

func pbPacked(b []byte) []uint64 {
	var out []uint64
	for len(b) > 0 {
		v, n := pbVarint(b)
		if n == 0 {
			break
		}
		out = append(out, v)
		b = b[n:]
	}
	return out
}

func pbFields(b []byte, f func(num, wt int, v uint64, data []byte) error) error {
	for len(b) > 0 {
		key, n := pbVarint(b)
		if n == 0 {
			return fmt.Errorf("protobuf: bad varint")
		}
		b = b[n:]
		num, wt := int(key>>3), int(key&7)
		var v uint64
		var data []byte
		switch wt {
		case 0:
			v, n = pbVarint(b)
			if n == 0 {
				return fmt.Errorf("protobuf: bad varint")
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return fmt.Errorf("protobuf: short fixed64")
			}
			b = b[8:]
		case 2:
			l, n := pbVarint(b)
			if n == 0 || uint64(len(b)-n) < l {
				return fmt.Errorf("protobuf: bad length")
			}
			data = b[n : n+int(l)]
			b = b[n+int(l):]
		case 5:
			if len(b) < 4 {
				return fmt.Errorf("protobuf: short fixed32")
			}
			b = b[4:]
		default:
			return fmt.Errorf("protobuf: wire type %d", wt)
		}
		if err := f(num, wt, v, data); err != nil {
			return err
		}
	}
	return nil
}
