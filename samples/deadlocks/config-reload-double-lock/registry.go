// Package registry: Reload holds the embedded mutex and, two calls down, lookup locks it again.
package registry

import "sync"

type Plugin struct{ Name, Version string }

type Registry struct {
	sync.Mutex
	plugins map[string]Plugin
	gen     int
}

func New() *Registry { return &Registry{plugins: map[string]Plugin{}} }

func (r *Registry) lookup(name string) (Plugin, bool) {
	r.Lock() //stuck:lookup
	defer r.Unlock()
	p, ok := r.plugins[name]
	return p, ok
}

func (r *Registry) upgrade(p Plugin) {
	if old, ok := r.lookup(p.Name); ok && old.Version == p.Version {
		return
	}
	r.plugins[p.Name] = p
}

// Reload replaces every plugin definition; the caller of upgrade already holds r.
func (r *Registry) Reload(defs []Plugin) int {
	r.Lock()
	defer r.Unlock()
	r.gen++
	for _, p := range defs {
		r.upgrade(p)
	}
	return r.gen
}
