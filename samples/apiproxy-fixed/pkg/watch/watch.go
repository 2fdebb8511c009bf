// Package watch mirrors the shape of k8s.io/apimachinery/pkg/watch.
package watch

type EventType string

const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Error    EventType = "ERROR"
)

// Object is anything that travels in a watch event.
type Object interface {
	GetObjectKind() string
}

type Event struct {
	Type   EventType
	Object Object
}

// Interface is an upstream watch.
type Interface interface {
	Stop()
	ResultChan() <-chan Event
}

// Status is what the upstream sends with ERROR events. It has no name.
type Status struct {
	Code    int
	Reason  string
	Message string
}

func (s *Status) GetObjectKind() string { return "Status" }

// Unstructured is an ordinary named resource.
type Unstructured struct {
	Kind            string
	Name            string
	Namespace       string
	ResourceVersion string
}

func (u *Unstructured) GetObjectKind() string { return u.Kind }
func (u *Unstructured) GetName() string       { return u.Name }
func (u *Unstructured) GetNamespace() string  { return u.Namespace }
