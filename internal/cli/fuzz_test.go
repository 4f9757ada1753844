package cli

import (
	"bytes"
	"io"
	"testing"
)

// FuzzObserveInput feeds `mem observe --input -` arbitrary stdin: it never
// panics, and what it accepts is a valid observation (privacy.FuzzFilter
// checks that private parts are gone).
func FuzzObserveInput(f *testing.F) {
	f.Add([]byte(`{"type":"decision","title":"Use backoff","facts":["a","a",""],"files_read":["x.go"]}`))
	f.Add([]byte(`{"type":"note","title":"\u009c<private>hidden</private> shown"}`))
	f.Add([]byte(`{"type":"note","title":"t","narrative":"<PRIVATE>unclosed`))
	f.Add([]byte(`{"type":"bogus","title":""}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		app := NewApp(bytes.NewReader(b), io.Discard, io.Discard)
		in, err := readObserveInput(app, "-")
		if err != nil {
			return
		}
		o, err := in.observation("s1")
		if err != nil {
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatalf("accepted an invalid observation: %v", err)
		}
	})
}
