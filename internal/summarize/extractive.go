package summarize

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/tokens"
)

// Extractive builds a summary from what the session recorded, without a
// model: the first prompts are the request, observations are sorted into
// decisions, work done, what was learned and problems left open, and the
// editor's last message gives the outcome. Same input, same summary.
type Extractive struct {
	// MaxTokens bounds the whole summary (DefaultMaxTokens when 0).
	MaxTokens int
}

// Name implements Summarizer.
func (Extractive) Name() string { return "extractive" }

// Length limits, in runes, of the pieces a summary is made of.
const (
	maxRequest  = 200
	maxFollowUp = 100
	maxItem     = 120
	maxSentence = 160
	maxFiles    = 10
	maxConcepts = 8
)

// Sections of a draft, in the order items are claimed (so an item said in
// one section is not repeated in a later one).
const (
	secDecisions = iota
	secCompleted
	secInvestigated
	secLearned
	secNext
	secOutcome
	numSections
)

// draft is everything the extractive summary may say, before it is fitted
// into the token bound.
type draft struct {
	request  string
	followUp []string
	sec      [numSections][]string
	read     []string // files only read
	files    []string // modified first, then read
	concepts []string
}

var (
	nextStep = lazy.NewRegexp(`(?i)\b(next steps?|todo|to-do|remaining|follow[- ]up|still (need|to|has|have|fails?)|not yet|left to|should (also|next)|later)\b`)
)

// unresolved marks a problem left open in next steps.
const unresolved = "Unresolved: "

// Summarize implements Summarizer.
func (e Extractive) Summarize(_ context.Context, in Input) (memory.Summary, error) {
	max := e.MaxTokens
	if max <= 0 {
		max = DefaultMaxTokens
	}
	d := extract(in)
	caps := [numSections]int{}
	for i := range caps {
		caps[i] = 5
	}
	caps[secOutcome] = 2
	nFiles, nConcepts := maxFiles, maxConcepts
	for {
		s := d.render(caps, nFiles, nConcepts)
		if summaryTokens(s) <= max {
			return s, nil
		}
		// Shrink long sections to three items, then the outcome to one
		// sentence, then sections to one item, then the lists, then the prose.
		switch {
		case shrink(&caps, d, 3):
		case caps[secOutcome] > 1:
			caps[secOutcome] = 1
		case shrink(&caps, d, 1):
		case nFiles > 3 || nConcepts > 3:
			nFiles, nConcepts = min(nFiles, 3), min(nConcepts, 3)
		case caps[secOutcome] > 0:
			caps[secOutcome] = 0
		default:
			return fitText(s, max), nil
		}
	}
}

// shrink lowers by one the cap of the longest section shown with more than
// floor items, and reports whether there was one.
func shrink(caps *[numSections]int, d draft, floor int) bool {
	best, bestLen := -1, 0
	for i := range caps {
		if i == secOutcome {
			continue
		}
		shown := min(caps[i], len(d.sec[i]))
		if shown > floor {
			if n := tokens.Estimate(strings.Join(d.sec[i][:shown], " ")); n > bestLen {
				best, bestLen = i, n
			}
		}
	}
	if best < 0 {
		return false
	}
	caps[best] = min(caps[best], len(d.sec[best])) - 1
	return true
}

// extract sorts the session's material into a draft.
func extract(in Input) draft {
	var d draft
	seen := dedup{}
	// The request: the first real prompt; later ones are follow-ups.
	for _, p := range in.Prompts {
		t := strings.TrimSpace(p.Text)
		if isFiller(t) {
			continue
		}
		if d.request == "" {
			ss := sentences(t, maxRequest)
			if len(ss) > 2 {
				ss = ss[:2]
			}
			d.request = cut(strings.Join(ss, " "), maxRequest)
			seen.add(d.request)
			continue
		}
		if f := item(t, maxFollowUp); f != "" && seen.add(f) && len(d.followUp) < 2 {
			d.followUp = append(d.followUp, f)
		}
	}

	fixed := resolved(in.Observations)
	add := func(sec int, s string) {
		if s = item(s, maxItem); s != "" && seen.add(s) {
			d.sec[sec] = append(d.sec[sec], s)
		}
	}
	// Decisions first, so that a decision is not repeated as work done.
	for _, o := range in.Observations {
		if o.Type == memory.TypeDecision {
			add(secDecisions, o.Title)
		}
	}
	for i, o := range in.Observations {
		switch o.Type {
		case memory.TypeFeature, memory.TypeBugfix, memory.TypeRefactor, memory.TypeChange,
			memory.TypeSolution, memory.TypeSuccess:
			add(secCompleted, o.Title)
		case memory.TypeProblem, memory.TypeWarning:
			if fixed[i] {
				add(secInvestigated, o.Title)
			} else {
				add(secNext, unresolved+item(o.Title, maxItem))
			}
		case memory.TypeDiscovery, memory.TypePattern, memory.TypeNote:
			add(secLearned, o.Title)
		}
	}

	// The last message: next steps it names, and the outcome it reports.
	for _, s := range sentences(in.Session.LastMessage, maxSentence) {
		if len(strings.Fields(s)) < 3 || strings.HasSuffix(s, "?") {
			continue
		}
		if nextStep.Get().MatchString(s) {
			if len(d.sec[secNext]) < 5 && seen.add(s) {
				d.sec[secNext] = append(d.sec[secNext], strings.TrimRight(s, "."))
			}
		} else if seen.add(s) {
			d.sec[secOutcome] = append(d.sec[secOutcome], s)
		}
	}

	// Files: modified first, then read.
	modified := map[string]bool{}
	var mod, read []string
	for _, o := range in.Observations {
		for _, f := range o.FilesModified {
			if !modified[f] {
				modified[f] = true
				mod = append(mod, f)
			}
		}
	}
	for _, o := range in.Observations {
		read = append(read, o.FilesRead...)
	}
	read = append(read, in.Session.FilesRead...)
	for _, f := range memory.CleanList(read) {
		if !modified[f] {
			d.read = append(d.read, f)
		}
	}
	d.files = memory.CleanList(append(mod, d.read...))
	d.concepts = concepts(in.Observations)
	return d
}

// filler reports whether a prompt (lower case) only lets the agent go on.
func filler(t string) bool {
	switch t {
	case "yes", "no", "ok", "okay", "continue", "go on", "go ahead", "thanks", "thank you", "do it", "proceed", "y", "n":
		return true
	}
	return false
}

func isFiller(t string) bool {
	t = strings.ToLower(strings.Trim(strings.TrimSpace(t), ".!"))
	return t == "" || filler(t) || strings.HasPrefix(t, "/")
}

// resolved marks the problems and warnings that a later fix (a bugfix,
// solution or success) addressed: one touching the same file, or any later
// fix when either side names no file.
func resolved(obs []memory.Observation) map[int]bool {
	out := map[int]bool{}
	for i, p := range obs {
		if p.Type != memory.TypeProblem && p.Type != memory.TypeWarning {
			continue
		}
		pf := append(append([]string{}, p.FilesRead...), p.FilesModified...)
		for _, f := range obs[i+1:] {
			if f.Type != memory.TypeBugfix && f.Type != memory.TypeSolution && f.Type != memory.TypeSuccess {
				continue
			}
			ff := append(append([]string{}, f.FilesRead...), f.FilesModified...)
			if len(pf) == 0 || len(ff) == 0 || overlap(pf, ff) {
				out[i] = true
				break
			}
		}
	}
	return out
}

func overlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// concepts returns the session's concepts, most frequent first.
func concepts(obs []memory.Observation) []string {
	count := map[string]int{}
	order := []string{}
	for _, o := range obs {
		for _, c := range o.Concepts {
			c = strings.ToLower(strings.TrimSpace(c))
			if c == "" {
				continue
			}
			if count[c] == 0 {
				order = append(order, c)
			}
			count[c]++
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	return order
}

// render fits the draft into a summary with at most caps[i] items per
// section and n files and concepts.
func (d draft) render(caps [numSections]int, nFiles, nConcepts int) memory.Summary {
	list := func(sec int) string {
		items := d.sec[sec]
		if len(items) <= caps[sec] {
			return strings.Join(items, "; ")
		}
		return strings.Join(items[:caps[sec]], "; ") + fmt.Sprintf(" (+%d more)", len(items)-caps[sec])
	}
	s := memory.Summary{
		Request:   d.request,
		Decisions: list(secDecisions),
		Completed: list(secCompleted),
		Learned:   list(secLearned),
		NextSteps: list(secNext),
		Files:     head(d.files, nFiles),
		Concepts:  head(d.concepts, nConcepts),
	}
	if len(d.followUp) > 0 {
		s.Request = strings.TrimSpace(s.Request + " Then: " + strings.Join(d.followUp, "; ") + ".")
	}
	s.Investigated = list(secInvestigated)
	if len(d.read) > 0 {
		r := "Read " + strings.Join(head(d.read, 5), ", ")
		if len(d.read) > 5 {
			r += fmt.Sprintf(" (+%d more)", len(d.read)-5)
		}
		s.Investigated = join(s.Investigated, r, "; ")
	}
	if s.Completed == "" && len(d.sec[secOutcome]) > 0 && caps[secOutcome] > 0 {
		s.Completed = strings.TrimRight(d.sec[secOutcome][0], ".")
	}

	// The prose: a few sentences over the same material.
	var text []string
	say := func(label, v string) {
		if v = strings.TrimSpace(v); v == "" {
			return
		}
		if !strings.ContainsAny(v[len(v)-1:], ".!?…") {
			v += "."
		}
		text = append(text, label+v)
	}
	say("Request: ", d.request)
	say("Done: ", headJoin(d.sec[secCompleted], min(caps[secCompleted], 2)))
	say("Decided: ", headJoin(d.sec[secDecisions], min(caps[secDecisions], 1)))
	say("Fixed: ", headJoin(d.sec[secInvestigated], min(caps[secInvestigated], 1)))
	say("Learned: ", headJoin(d.sec[secLearned], min(caps[secLearned], 1)))
	if len(d.sec[secCompleted]) == 0 && len(d.read) > 0 {
		say("Read: ", strings.Join(head(d.read, 3), ", "))
	}
	if caps[secOutcome] > 0 {
		say("Outcome: ", strings.Join(head(d.sec[secOutcome], caps[secOutcome]), " "))
	}
	var open []string
	for _, n := range head(d.sec[secNext], min(caps[secNext], 2)) {
		open = append(open, strings.TrimPrefix(n, unresolved))
	}
	say("Open: ", strings.Join(open, "; "))
	s.Text = strings.Join(text, " ")
	return s
}

func head(l []string, n int) []string {
	if len(l) <= n {
		return l
	}
	return l[:n]
}

func headJoin(l []string, n int) string { return strings.Join(head(l, n), "; ") }

func join(a, b, sep string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + sep + b
}

// fitText cuts the fields, the prose last, until the summary fits
// max tokens.
func fitText(s memory.Summary, max int) memory.Summary {
	fields := []*string{&s.Investigated, &s.Learned, &s.Decisions, &s.NextSteps, &s.Completed, &s.Request, &s.Text}
	for i, f := range fields {
		if i == 5 && summaryTokens(s) > max {
			s.Files, s.Concepts = head(s.Files, 1), head(s.Concepts, 1)
		}
		for summaryTokens(s) > max && *f != "" {
			n := len([]rune(*f)) * 3 / 4
			if n < 20 {
				*f = ""
				break
			}
			*f = cut(*f, n)
		}
	}
	return s
}
