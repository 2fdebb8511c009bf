// Command checkdumps checks every dump a case's expected.json lists: the file exists and is of its
// kind, holds 1-50 goroutines, and every stuck site appears: a goroutine (or leak-report record)
// in the expected state (without `, N minutes`) with a frame `function(` at `<file>:<line>`.
// Usage (from samples/deadlocks): go run ./tools/checkdumps case...
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

type expected struct {
	Schema   string `json:"schema"`
	Case     string `json:"case"`
	Taxonomy string `json:"taxonomy"`
	Verdict  string `json:"verdict"`
	Files    []struct {
		Path, Go, Kind string
	} `json:"files"`
	Stuck []struct {
		Function string            `json:"function"`
		File     string            `json:"file"`
		Line     int               `json:"line"`
		States   map[string]string `json:"states"`
		WaitKind string            `json:"waitKind"`
	} `json:"stuck"`
}

type frame struct {
	fn, loc string
}

type goroutine struct {
	id     string
	state  string
	frames []frame
}

var (
	header    = regexp.MustCompile(`^\s*goroutine (\d+)(?: gp=\S+ m=\S+(?: mp=\S+)?)? \[([^\]]*)\]:$`)
	record    = regexp.MustCompile(`^\s*\[?\s*Goroutine (\d+) in state (.*), with \S+ on top of the stack:$`)
	minutes   = regexp.MustCompile(`, \d+ minutes$`)
	kindMarks = map[string]*regexp.Regexp{
		"test-timeout": regexp.MustCompile(`(?m)^panic: test timed out after `),
		"leak-report":  regexp.MustCompile(`found unexpected goroutines:`),
		"sigquit":      regexp.MustCompile(`\ASIGQUIT: quit`),
	}
)

func parse(path string) ([]goroutine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []goroutine
	var cur *goroutine
	var pending string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := record.FindStringSubmatch(line); m != nil {
			out = append(out, goroutine{id: m[1], state: m[2]})
			cur, pending = &out[len(out)-1], ""
			continue
		}
		if m := header.FindStringSubmatch(line); m != nil {
			if cur != nil && cur.id == m[1] && len(cur.frames) == 0 {
				continue // goleak's older record shape repeats the runtime header inside the record
			}
			out = append(out, goroutine{id: m[1], state: m[2]})
			cur, pending = &out[len(out)-1], ""
			continue
		}
		if cur == nil {
			continue
		}
		t := strings.TrimLeft(line, " ")
		if strings.HasPrefix(t, "\t") && pending != "" {
			cur.frames = append(cur.frames, frame{pending, strings.TrimSpace(t)})
			pending = ""
			continue
		}
		pending = ""
		if i := strings.LastIndexByte(t, '('); i > 0 && strings.HasSuffix(t, ")") && !strings.HasPrefix(t, "created by ") {
			pending = t[:i]
		}
	}
	return out, sc.Err()
}

func main() {
	failed := 0
	fail := func(format string, a ...interface{}) {
		failed++
		fmt.Fprintf(os.Stderr, "FAIL "+format+"\n", a...)
	}
	for _, c := range os.Args[1:] {
		var e expected
		b, err := os.ReadFile(filepath.Join(c, "expected.json"))
		if err == nil {
			err = json.Unmarshal(b, &e)
		}
		if err != nil {
			fail("%s/expected.json: %v", c, err)
			continue
		}
		if e.Schema != "leakscope-deadlock/v1" || e.Case != c {
			fail("%s/expected.json: schema %q case %q", c, e.Schema, e.Case)
		}
		if (e.Verdict == "healthy") != (len(e.Stuck) == 0) {
			fail("%s: verdict %s with %d stuck sites", c, e.Verdict, len(e.Stuck))
		}
		listed := map[string]bool{}
		for _, f := range e.Files {
			listed[f.Path] = true
			path := filepath.Join(c, f.Path)
			text, err := os.ReadFile(path)
			if err != nil {
				fail("%s: %v", path, err)
				continue
			}
			if mk := kindMarks[f.Kind]; mk == nil || !mk.Match(text) {
				fail("%s: not a %s dump", path, f.Kind)
			}
			gs, err := parse(path)
			if err != nil {
				fail("%s: %v", path, err)
				continue
			}
			if len(gs) < 1 || len(gs) > 50 {
				fail("%s: %d goroutines, want 1-50", path, len(gs))
			}
			ver := strings.SplitN(f.Path, "/", 2)[0]
			for _, s := range e.Stuck {
				want := s.States[ver]
				loc := "/" + s.File + ":" + fmt.Sprint(s.Line)
				found := false
				for _, g := range gs {
					if minutes.ReplaceAllString(g.state, "") != want {
						continue
					}
					for _, fr := range g.frames {
						if fr.fn == s.Function && (strings.HasSuffix(fr.loc, loc) || strings.Contains(fr.loc, loc+" ")) {
							found = true
						}
					}
				}
				if !found {
					fail("%s: no goroutine in state %q at %s %s", path, want, s.Function, loc)
				}
			}
		}
		vers, _ := filepath.Glob(filepath.Join(c, "go1.*"))
		for _, vd := range vers {
			v := filepath.Base(vd)
			ents, _ := os.ReadDir(vd)
			for _, d := range ents {
				if !listed[v+"/"+d.Name()] {
					fail("%s/%s/%s: not listed in expected.json", c, v, d.Name())
				}
			}
		}
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "%d check(s) failed\n", failed)
		os.Exit(1)
	}
	fmt.Printf("checked %d cases\n", len(os.Args)-1)
}
