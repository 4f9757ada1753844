// Package corpus holds a hostile corpus of secrets for the tests of every
// way into mem's database: fakes of each kind the privacy filter must catch,
// with the fragments of each that must never be stored or shown.
package corpus

import (
	_ "embed"
	"fmt"
	"strings"
)

//go:embed secrets.txt
var secrets string

// Entry is one secret of the corpus.
type Entry struct {
	Kind  string
	Text  string   // the secret as it appears in a file or output
	Leaks []string // fragments of it that must not survive the filter
}

// Entries returns the corpus, or panics when the file is malformed.
func Entries() []Entry {
	var out []Entry
	for _, block := range strings.Split(secrets, "\n==\n") {
		head, text, ok := strings.Cut(block, "\n--\n")
		if !ok {
			continue // the header comment, or the end
		}
		var e Entry
		for _, l := range strings.Split(head, "\n") {
			if k, ok := strings.CutPrefix(l, "kind: "); ok {
				e.Kind = k
			} else if k, ok := strings.CutPrefix(l, "leak: "); ok {
				e.Leaks = append(e.Leaks, k)
			}
		}
		if e.Kind == "" || len(e.Leaks) == 0 || text == "" {
			panic(fmt.Sprintf("corpus: malformed entry %q", head))
		}
		e.Text = text
		out = append(out, e)
	}
	return out
}
