package upload

import "testing"

func TestUploadSkipsEmpty(t *testing.T) {
	b := &Bucket{objects: map[string][]byte{}}
	UploadAll(b, []Part{{"a", []byte("x")}, {"empty", nil}, {"c", []byte("z")}})
	if len(b.objects) != 2 {
		t.Fatal(b.objects)
	}
}
