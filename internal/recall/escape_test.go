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
	const hostile = "ran \x1b]52;c;cm0gLXJmIH4=\x07 and \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ \u009b2J \u202eexe.txt \u2028next"
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
			visible := strings.Contains(res.Text, `\x1b]52;c;`) && strings.Contains(res.Text, `\u202e`)
			if visible != (f != FormatXML) {
				t.Errorf("%s, session %s: escapes shown = %v in %q", f, sess, visible, res.Text)
			}
		}
	}
}
