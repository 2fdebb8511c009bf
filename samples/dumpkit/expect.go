// Package dumpkit is the shared harness of the leakscope samples: it waits until
// a sample program has reached the state its expected.json describes, proves it
// by parsing the program's own goroutine dumps (debug=0, 1 and 2), and only
// then writes those dumps to disk.
package dumpkit

import (
	"encoding/json"
	"fmt"
	"os"
)

// Expected is the schema of samples/<case>/expected.json (see samples/README.md).
type Expected struct {
	Schema       string           `json:"schema"`
	Case         string           `json:"case"`
	Verdict      string           `json:"verdict"`
	Go           string           `json:"go,omitempty"`
	Files        []string         `json:"files,omitempty"`
	Total        *int             `json:"total,omitempty"`
	TotalAtLeast *int             `json:"totalAtLeast,omitempty"`
	Groups       []Group          `json:"groups,omitempty"`
	Leak         *Leak            `json:"leak,omitempty"`
	Traces       map[string]Trace `json:"traces,omitempty"`
	Notes        string           `json:"notes,omitempty"`
}

// Group is a set of goroutines identified by one frame (function, file, line)
// present somewhere in their stacks. Groups of one file are disjoint.
type Group struct {
	ID        string            `json:"id"`
	Role      string            `json:"role,omitempty"`
	Function  string            `json:"function"`
	File      string            `json:"file"`
	Line      int               `json:"line"`
	State     string            `json:"state,omitempty"`
	Count     int               `json:"count"`
	Stack     []string          `json:"stack,omitempty"`
	CreatedBy string            `json:"createdBy,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

type FrameRef struct {
	Group    string `json:"group,omitempty"`
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	State    string `json:"state,omitempty"`
	Count    int    `json:"count"`
	Note     string `json:"note,omitempty"`
}

type Leak struct {
	Root         FrameRef   `json:"root"`
	Consequences []FrameRef `json:"consequences,omitempty"`
}

// Trace describes a text file in runtime traceback format that is not a
// pprof dump: a SIGQUIT dump, a crash, a go test timeout, a race report.
type Trace struct {
	Kind         string   `json:"kind"`
	Gotraceback  string   `json:"gotraceback,omitempty"`
	Total        *int     `json:"total,omitempty"`
	TotalAtLeast *int     `json:"totalAtLeast,omitempty"`
	Groups       []Group  `json:"groups,omitempty"`
	Contains     []string `json:"contains,omitempty"`
}

func LoadExpected(path string) (*Expected, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var e Expected
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &e, nil
}
