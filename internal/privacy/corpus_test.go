package privacy

import (
	"strings"
	"testing"

	"github.com/memhq/mem/internal/privacy/corpus"
)

// Every secret of the hostile corpus is redacted, alone, amid prose and
// code, and cut where capture cuts text; filtering twice changes nothing.
func TestCorpusIsRedacted(t *testing.T) {
	entries := corpus.Entries()
	if len(entries) < 40 {
		t.Fatalf("only %d entries", len(entries))
	}
	for _, e := range entries {
		t.Run(e.Kind, func(t *testing.T) {
			for _, in := range []string{
				e.Text,
				"see the config below:\n" + e.Text + "\nthen restart the service",
				"err := run(ctx) // " + e.Text + "; retry",
				`{"stdout":"` + strings.ReplaceAll(e.Text, "\n", `\n`) + `"}`,
			} {
				out := Filter(in)
				for _, l := range e.Leaks {
					if strings.Contains(out, l) {
						t.Errorf("Filter kept %q of:\n%s\ngot:\n%s", l, in, out)
					}
				}
				if again := Filter(out); again != out {
					t.Errorf("a second pass changed %q to %q", out, again)
				}
			}
		})
	}
}
