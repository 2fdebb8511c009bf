// Package meta mirrors k8s.io/apimachinery/pkg/api/meta.Accessor.
package meta

import "fmt"

// Object is the metadata of a named resource.
type Object interface {
	GetName() string
	GetNamespace() string
}

// Accessor returns the metadata of obj, or an error when obj is not a named
// resource (for example a *watch.Status carried by an ERROR event).
func Accessor(obj interface{}) (Object, error) {
	if m, ok := obj.(Object); ok {
		return m, nil
	}
	return nil, fmt.Errorf("object does not implement the Object interfaces: %T", obj)
}
