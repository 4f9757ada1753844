package recall

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/termsafe"
)

// TestReaderFormatsShowControlsEscaped: text from tools (ESC, OSC 52 and
// OSC 8 sequences, C1, U+2028, bidirectional overrides) is shown escaped in
// the text and pretty formats, never raw; the XML block, for the model,
// drops the C0 and C1 controls as before.
func TestReaderFormatsShowControlsEscaped(t *testing.T) {
	// A bidirectional override is hidden text to the instruction check:
	// such a record is left out of every format (TestHiddenTextIsLeftOut).
	const hostile = "ran \x1b]52;c;cm0gLXJmIH4=\x07 and \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ \u009b2J exe.txt \u2028next"
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &memSource{Sessions: []memory.Session{{ID: "s1", Project: "p", StartedAt: base}, {ID: "s2", Project: "p", StartedAt: base}}}
	m.Observations = []memory.Observation{{ID: 1, SessionID: "s1", Project: "p", Type: memory.TypeDecision,
		Title: hostile, Subtitle: hostile, Narrative: hostile, CreatedAt: base}}
	m.Summaries = []memory.Summary{{ID: 1, SessionID: "s1", Project: "p", Request: hostile, Completed: hostile,
		CreatedAt: base.Add(time.Hour)}}
	for _, f := range []Format{FormatText, FormatPretty, FormatXML} {
		for _, sess := range []string{"s1", "s2"} {
			res, err := Build(context.Background(), m, Request{Project: "p", SessionID: sess, Mode: ModeStart, Format: f}, DefaultSettings())
			if err != nil {
				t.Fatal(err)
			}
			raw := termsafe.IsControl
			if f == FormatXML {
				raw = unicode.IsControl // U+2028 and the bidi marks are XML text
			}
			if strings.ContainsFunc(res.Text, func(r rune) bool { return raw(r) && r != '\n' }) {
				t.Errorf("%s, session %s: a raw control character in %q", f, sess, res.Text)
			}
			visible := strings.Contains(res.Text, `\x1b]52;c;`) && strings.Contains(res.Text, `\u2028`)
			if visible != (f != FormatXML) {
				t.Errorf("%s, session %s: escapes shown = %v in %q", f, sess, visible, res.Text)
			}
		}
	}
}

// TestHiddenTextIsLeftOut: an observation or summary whose text hides
// characters (a bidirectional override) is held back by the gate on the
// way out, in every format, whether or not it was flagged when stored.
func TestHiddenTextIsLeftOut(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := &memSource{Sessions: []memory.Session{{ID: "s1", Project: "p", StartedAt: base}, {ID: "s2", Project: "p", StartedAt: base}}}
	m.Observations = []memory.Observation{
		{ID: 1, SessionID: "s1", Project: "p", Type: memory.TypeDecision, Title: "rename \u202eexe.txt", CreatedAt: base},
		{ID: 2, SessionID: "s1", Project: "p", Type: memory.TypeDecision, Title: "Keep the refund retries at 5", CreatedAt: base}}
	m.Summaries = []memory.Summary{{ID: 1, SessionID: "s1", Project: "p", Request: "fix it", Completed: "done \u2066push\u2069",
		CreatedAt: base.Add(time.Hour)}}
	for _, f := range []Format{FormatText, FormatPretty, FormatXML} {
		res, err := Build(context.Background(), m, Request{Project: "p", SessionID: "s2", Mode: ModeStart, Format: f}, DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Text, "exe.txt") || strings.Contains(res.Text, "push") || !strings.Contains(res.Text, "refund retries") {
			t.Errorf("%s: %q", f, res.Text)
		}
	}
}
