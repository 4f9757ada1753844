package guard

import (
	"path"
	"strconv"
	"strings"

	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/text"
)

// Review is what the check finds in texts, as stored with a record: the
// rule and the span, or nothing. A person's release of the same finding is
// kept (prev), so editing a released record does not hold it again.
func Review(prev memory.Review, texts ...string) memory.Review {
	f, ok := CheckAll(texts...)
	if !ok {
		return memory.Review{}
	}
	return memory.Review{Flag: f.Rule, Span: f.Span, Released: prev.Released && prev.Flag == f.Rule}
}

// observationTexts are the texts of an observation the check reads.
func observationTexts(o memory.Observation) []string {
	return append([]string{o.Title, o.Subtitle, o.Narrative}, o.Facts...)
}

// summaryTexts are the texts of a summary the check reads. The request is
// the user's own prompt in a summary mem wrote (the extractive one), and
// the user speaking is not checked; a model's summary is checked whole.
func summaryTexts(s memory.Summary) []string {
	texts := []string{s.Investigated, s.Learned, s.Completed, s.NextSteps, s.Decisions}
	if s.Generator == "" || s.Generator == "extractive" {
		return append(texts, strings.Replace(s.Text, s.Request, "", 1))
	}
	return append(texts, s.Request, s.Text)
}

// MarkObservation sets the review of an observation about to be stored.
func MarkObservation(o *memory.Observation) {
	o.Review = Review(o.Review, observationTexts(*o)...)
}

// MarkSummary sets the review of a summary about to be stored.
func MarkSummary(s *memory.Summary) {
	s.Review = Review(s.Review, summaryTexts(*s)...)
}

// MarkImported sets the review of a record from an import or a team pull:
// the flag the file gives is kept, the check runs where it gives none, and
// a release never comes from a file: only a person on this machine
// releases.
func MarkImported(r *memory.Review, texts ...string) {
	if r.Flag == "" {
		*r = Review(memory.Review{}, texts...)
	}
	r.Released = false
	if len(r.Span) > maxSpan {
		r.Span = span(r.Span, 0, maxSpan)
	}
}

// ImportedObservation is MarkImported for an observation.
func ImportedObservation(o *memory.Observation) { MarkImported(&o.Review, observationTexts(*o)...) }

// ImportedSummary is MarkImported for a summary.
func ImportedSummary(s *memory.Summary) { MarkImported(&s.Review, summaryTexts(*s)...) }

// netCommand matches a shell command whose output comes from the network.
var netCommand = lazy.NewRegexp(`(?:^|[\s;&|(]|\$\()(?:curl|wget|http|https|httpie|xh|aria2c|lynx|w3m|links|elinks|nc|ncat|netcat|telnet|ftp|sftp|iwr|irm|invoke-webrequest|invoke-restmethod)(?:\.exe)?(?:\s|$)`)

// NetworkCommand reports whether a shell command prints what it fetched
// from the network: its output is untrusted.
func NetworkCommand(cmd string) bool {
	return strings.ContainsAny(cmd, "chilnstwx") && netCommand.Get().MatchString(strings.ToLower(cmd))
}

// vendored reports whether a folder's name is one that holds other
// projects' code. A switch, not a map: a map would be built at every start
// of mem, hooks included.
func vendored(name string) bool {
	switch name {
	case "node_modules", "vendor", ".venv", "venv", "site-packages", "dist-packages", "third_party", "third-party",
		"bower_components", "jspm_packages", "Pods", ".bundle", ".gradle", ".m2", ".cargo", ".yarn", ".pnpm-store",
		"__pypackages__":
		return true
	}
	return false
}

// ForeignPath reports whether a file as capture records it (relative to the
// project root, or absolute when outside it) is outside the project or in a
// vendored tree: what it holds is untrusted.
func ForeignPath(p string) bool {
	p = strings.ReplaceAll(p, `\`, "/")
	if path.IsAbs(p) || strings.HasPrefix(p, "../") || len(p) > 1 && p[1] == ':' {
		return true
	}
	for _, seg := range strings.Split(p, "/") {
		if vendored(seg) {
			return true
		}
	}
	return false
}

// ForAgent prepares an observation to be given to the agent: the last gate
// on the way out, so rows written before today's rules are held to them. It
// reports false when the observation must not be given at all: flagged and
// not released, or, for a row without provenance (written before mem
// checked what it stores), instruction-shaped by today's check. A row with
// provenance was checked when it was stored, imported or pulled, and its
// flag says what the check found. Otherwise its texts pass the privacy filter again, and an
// untrusted one is reduced to mem's own neutral words (no subtitle,
// narrative or facts: the id fetches the rest on request).
func ForAgent(o *memory.Observation) bool {
	if o.Review.Held() {
		return false
	}
	if o.Origin == "" {
		if _, ok := CheckAll(observationTexts(*o)...); ok && !o.Review.Released {
			return false
		}
		o.Title = privacy.Filter(o.Title)
		o.Subtitle = privacy.Filter(o.Subtitle)
		if o.Narrative != "" {
			o.Narrative = privacy.Filter(o.Narrative)
		}
		o.Facts = privacy.FilterAll(o.Facts)
	}
	if o.Untrusted || untrustedShape(*o) {
		o.Title = Neutral(*o)
		o.Subtitle, o.Narrative, o.Facts = "", "", nil
		o.Untrusted = true
	}
	return true
}

// SummaryForAgent is ForAgent for a summary. An untrusted summary (a
// model's, written from untrusted tool output) keeps the user's request
// and its files; the rest is mem's note of where to find it.
func SummaryForAgent(s *memory.Summary) bool {
	if s.Review.Held() {
		return false
	}
	if s.Origin == "" {
		if _, ok := CheckAll(summaryTexts(*s)...); ok && !s.Review.Released {
			return false
		}
		for _, f := range []*string{&s.Request, &s.Investigated, &s.Learned, &s.Completed, &s.NextSteps, &s.Decisions, &s.Text} {
			if *f != "" {
				*f = privacy.Filter(*f)
			}
		}
	}
	if s.Untrusted {
		s.Investigated, s.Learned, s.NextSteps, s.Decisions, s.Text = "", "", "", "", ""
		s.Completed = "summarized from untrusted tool output; mem get S" + strconv.FormatInt(s.ID, 10) + " has it"
	}
	return true
}

// untrustedShape recognises an untrusted observation that carries no
// provenance (written before mem kept it, or imported): a captured command
// whose output came from the network.
func untrustedShape(o memory.Observation) bool {
	cmd, ok := commandOf(o)
	return ok && NetworkCommand(cmd)
}

func commandOf(o memory.Observation) (string, bool) {
	for _, f := range o.Facts {
		if c, ok := strings.CutPrefix(f, "command: "); ok {
			return c, true
		}
	}
	return "", false
}

// Neutral is what mem says of an untrusted observation in its own words:
// the command it ran and that it failed, the tests that failed, or the tool
// and files; never the text that came from outside.
func Neutral(o memory.Observation) string {
	var b strings.Builder
	if cmd, ok := commandOf(o); ok {
		b.WriteString("ran `" + text.CutWord(text.FirstLine(cmd), 80) + "`")
		if o.Type == memory.TypeProblem {
			b.WriteString(", it failed")
		}
		for _, f := range o.Facts {
			if tests, ok := strings.CutPrefix(f, "failing tests: "); ok {
				b.WriteString("; failing: " + identifiers(tests, 5))
			}
		}
	} else {
		tool := o.Event
		if tool == "" {
			tool = o.ToolName
		}
		b.WriteString(string(o.Type) + " from untrusted " + strings.TrimSpace(tool+" output"))
		files := append(append([]string(nil), o.FilesModified...), o.FilesRead...)
		if len(files) > 0 {
			if len(files) > 3 {
				files = files[:3]
			}
			b.WriteString(" (" + strings.Join(files, ", ") + ")")
		}
	}
	b.WriteString("; untrusted source, details: mem get #" + strconv.FormatInt(o.ID, 10))
	return b.String()
}

var identRe = lazy.NewRegexp(`^[A-Za-z_][A-Za-z0-9_/.-]{0,80}$`)

// identifiers keeps at most n of a comma-separated list that look like
// test names.
func identifiers(list string, n int) string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); identRe.Get().MatchString(s) && len(out) < n {
			out = append(out, s)
		}
	}
	return strings.Join(out, ", ")
}

// RecheckObservation is the review an observation earns by today's rules,
// a person's release of the same flag kept.
func RecheckObservation(o memory.Observation) memory.Review {
	return Review(o.Review, observationTexts(o)...)
}

// RecheckSummary is RecheckObservation for a summary.
func RecheckSummary(s memory.Summary) memory.Review { return Review(s.Review, summaryTexts(s)...) }
