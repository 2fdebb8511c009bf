// Package cache is a session cache shared by the refresher and the handlers.
package cache

type Entry struct {
	User  string
	Roles []string
}

// Cache has no lock: the refresher writes while handlers read.
type Cache struct {
	entries map[string]*Entry
}

func New() *Cache { return &Cache{entries: map[string]*Entry{}} }

// Put is called by the refresher.
func (c *Cache) Put(key string, e *Entry) {
	c.entries[key] = e
}

// Get is called by request handlers.
func (c *Cache) Get(key string) *Entry {
	return c.entries[key]
}
