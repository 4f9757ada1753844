package recall

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/tokens"
)

// FuzzBuildXML renders memory whose text is arbitrary (control characters,
// invalid UTF-8, markup, "]]>") under an arbitrary budget: the block never
// panics, is well-formed XML with one <memory_context> root, and holds its
// budget.
func FuzzBuildXML(f *testing.F) {
	f.Add("Use <b>backoff</b> & retry", "narrative ]]> <!-- x -->", "summary \x00\x1b[31m", 400)
	f.Add("\xff\xfe", "\u2028\u2029", "", 50)
	f.Add(strings.Repeat("long title ", 60), "n", "s", 2000)
	f.Fuzz(func(t *testing.T, title, narrative, summary string, budget int) {
		if budget < 0 || budget > 20000 {
			return
		}
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		m := &memSource{Sessions: []memory.Session{{ID: "s1", Project: "p", StartedAt: base}, {ID: "s2", Project: "p", StartedAt: base}}}
		for i, ty := range []memory.Type{memory.TypeDecision, memory.TypeProblem, memory.TypeNote} {
			m.Observations = append(m.Observations, memory.Observation{ID: int64(i + 1), SessionID: "s1", Project: "p",
				Type: ty, Title: title + "x", Narrative: narrative, Facts: []string{summary},
				CreatedAt: base.Add(time.Duration(i) * time.Hour)})
		}
		m.Summaries = []memory.Summary{{ID: 1, SessionID: "s1", Project: "p", Request: title, Completed: summary,
			Learned: narrative, Text: summary, CreatedAt: base.Add(5 * time.Hour)}}
		for _, mode := range []Mode{ModeStart, ModeCompact} {
			res, err := Build(context.Background(), m, Request{Project: "p", SessionID: "s2", Mode: mode,
				Format: FormatXML, Budget: budget}, DefaultSettings())
			if err != nil {
				t.Fatalf("%s: %v", mode, err)
			}
			if res.Text == "" {
				continue
			}
			if budget > 0 && tokens.Estimate(res.Text) > budget {
				t.Fatalf("%s: %d tokens over a budget of %d", mode, tokens.Estimate(res.Text), budget)
			}
			dec := xml.NewDecoder(strings.NewReader(res.Text))
			depth, roots := 0, 0
			for {
				tok, err := dec.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("%s: malformed XML (%v):\n%s", mode, err, res.Text)
				}
				switch e := tok.(type) {
				case xml.StartElement:
					if depth == 0 {
						roots++
						if e.Name.Local != "memory_context" {
							t.Fatalf("%s: root <%s>", mode, e.Name.Local)
						}
					}
					depth++
				case xml.EndElement:
					depth--
				}
			}
			if roots != 1 {
				t.Fatalf("%s: %d roots", mode, roots)
			}
		}
	})
}
