// Package benchgen generates realistic synthetic memory for benchmarks and
// stress runs: many projects, sessions of 10-60 observations, a coding
// vocabulary with Zipf-like word frequencies, identifiers, file paths and
// error messages shared within a project, and dates spread over a year. The
// output is a stream of interchange records, deterministic for a seed.
package benchgen

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/text"
)

// Options shape a generated memory.
type Options struct {
	Observations int       // total observations (at least)
	Seed         uint64    // same seed, same records
	End          time.Time // newest date; sessions spread over the year before it
	Projects     int       // 0: derived from Observations
	Prefix       string    // of session ids and uuids; default "bench"
}

// RareWord is a word the generator puts in about one observation in 20,000,
// so that a benchmark has a rare-word query with few but some hits.
const RareWord = "quokkaflux"

// CommonWord is the most frequent vocabulary word, in most observations.
const CommonWord = "error"

// CommonWords is a query of only the most frequent vocabulary words (no
// stopwords): each of them is in a large share of the observations.
const CommonWords = "error test function config file value request query"

// DefaultEnd is the fixed newest date of generated memory, so that the same
// seed gives the same bytes.
var DefaultEnd = time.Date(2026, 6, 30, 18, 0, 0, 0, time.UTC)

// ProjectKey names project i the way mem keys projects (a normalised remote).
func ProjectKey(i int) string {
	return fmt.Sprintf("github.com/%s/%s-%s", orgs[i%len(orgs)], nouns[(i*7)%len(nouns)], suffixes[(i/len(orgs))%len(suffixes)])
}

// ProjectCount is how many projects Generate makes for opts.
func ProjectCount(opts Options) int {
	if opts.Projects > 0 {
		return opts.Projects
	}
	n := opts.Observations / 4000
	return max(4, min(n, 250))
}

// Generate calls emit for every record: each session first, then its
// observations, prompts and (for most sessions) its summary. It stops at the
// first error emit returns.
func Generate(opts Options, emit func(memory.Record) error) error {
	if opts.End.IsZero() {
		opts.End = DefaultEnd
	}
	if opts.Prefix == "" {
		opts.Prefix = "bench"
	}
	g := &gen{
		prefix: opts.Prefix,
		r:      rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)),
		end:    opts.End,
		emit:   emit,
	}
	g.zipf = rand.NewZipf(g.r, 1.1, 4, uint64(len(words)-1))
	nproj := ProjectCount(opts)
	projects := make([]*projectVocab, nproj)
	for i := range projects {
		projects[i] = g.project(i)
	}
	// Projects are used unevenly, as real ones are: a few get most sessions.
	pz := rand.NewZipf(g.r, 1.2, 3, uint64(nproj-1))
	total := 0
	for s := 0; total < opts.Observations; s++ {
		p := projects[pz.Uint64()]
		n := 10 + g.r.IntN(51)
		if rest := opts.Observations - total; n > rest && rest >= 10 {
			n = rest
		}
		if err := g.session(p, s, n); err != nil {
			return err
		}
		total += n
	}
	return nil
}

type gen struct {
	prefix string
	r      *rand.Rand
	zipf   *rand.Zipf
	end    time.Time
	emit   func(memory.Record) error
	obs    int // observations so far, for uuids and the rare word
}

type projectVocab struct {
	key    string
	root   string
	files  []string
	idents []string
	errs   []string
}

func (g *gen) project(i int) *projectVocab {
	p := &projectVocab{key: ProjectKey(i), root: "/home/dev/src/" + nouns[(i*7)%len(nouns)]}
	nf := 40 + g.r.IntN(160)
	for range nf {
		dir := dirs[g.r.IntN(len(dirs))]
		name := nouns[g.r.IntN(len(nouns))] + exts[g.r.IntN(len(exts))]
		p.files = append(p.files, dir+"/"+name)
	}
	ni := 60 + g.r.IntN(140)
	for range ni {
		p.idents = append(p.idents, g.ident())
	}
	for range 20 + g.r.IntN(30) {
		p.errs = append(p.errs, g.errMessage(p))
	}
	return p
}

func (g *gen) ident() string {
	v := verbs[g.r.IntN(len(verbs))]
	n := nouns[g.r.IntN(len(nouns))]
	switch g.r.IntN(4) {
	case 0:
		return v + text.UpperFirst(n)
	case 1:
		return text.UpperFirst(n) + text.UpperFirst(nouns[g.r.IntN(len(nouns))])
	case 2:
		return text.UpperFirst(v) + text.UpperFirst(n) + "Config"
	default:
		return v + text.UpperFirst(n) + "ID"
	}
}

func (g *gen) errMessage(p *projectVocab) string {
	f := errForms[g.r.IntN(len(errForms))]
	return fmt.Sprintf(f, p.idents[g.r.IntN(len(p.idents))], nouns[g.r.IntN(len(nouns))])
}

// sentence is 6-16 Zipf-drawn words with an identifier or file now and then.
func (g *gen) sentence(p *projectVocab) string {
	n := 6 + g.r.IntN(11)
	parts := make([]string, 0, n)
	for range n {
		switch x := g.r.IntN(20); {
		case x == 0:
			parts = append(parts, p.idents[g.r.IntN(len(p.idents))])
		case x == 1:
			parts = append(parts, p.files[g.r.IntN(len(p.files))])
		default:
			parts = append(parts, words[g.zipf.Uint64()])
		}
	}
	if g.obs%20000 == 7 {
		parts = append(parts, RareWord)
	}
	s := strings.Join(parts, " ")
	return text.UpperFirst(s) + "."
}

func (g *gen) session(p *projectVocab, s, nobs int) error {
	// Sessions spread over the year before end; each lasts minutes to hours.
	start := g.end.Add(-time.Duration(g.r.Int64N(int64(365 * 24 * time.Hour)))).Truncate(time.Second)
	id := fmt.Sprintf("%s-%08d", g.prefix, s)
	agent := agents[g.r.IntN(len(agents))]
	nprompts := 1 + nobs/12 + g.r.IntN(3)
	at := start
	obs := make([]memory.Observation, 0, nobs)
	filesRead := map[string]bool{}
	for i := range nobs {
		at = at.Add(time.Duration(20+g.r.IntN(600)) * time.Second)
		o := g.observation(p, id, i, nobs, nprompts)
		o.CreatedAt = at
		for _, f := range o.FilesRead {
			filesRead[f] = true
		}
		obs = append(obs, o)
	}
	sess := memory.Session{
		ID: id, Project: p.key, Agent: agent, AgentType: "build", Cwd: p.root,
		StartedAt: start, LastActivityAt: at, PromptCount: nprompts, Status: memory.StatusEnded,
	}
	ended := at
	sess.EndedAt = &ended
	sess.FilesRead = slices.Sorted(maps.Keys(filesRead))
	if err := g.emit(memory.Record{Kind: memory.KindSession, Session: &sess}); err != nil {
		return err
	}
	for i := range obs {
		if err := g.emit(memory.Record{Kind: memory.KindObservation, Observation: &obs[i]}); err != nil {
			return err
		}
	}
	for n := 1; n <= nprompts; n++ {
		pr := memory.Prompt{
			UUID: fmt.Sprintf("%s-p%d", id, n), SessionID: id, PromptNumber: n,
			Text:      g.prompt(p),
			CreatedAt: start.Add(time.Duration(n) * at.Sub(start) / time.Duration(nprompts+1)),
		}
		if err := g.emit(memory.Record{Kind: memory.KindPrompt, Prompt: &pr}); err != nil {
			return err
		}
	}
	if g.r.IntN(10) < 8 {
		sum := g.summary(p, id, obs, at)
		if err := g.emit(memory.Record{Kind: memory.KindSummary, Summary: &sum}); err != nil {
			return err
		}
	}
	return nil
}

func (g *gen) observation(p *projectVocab, session string, i, n, nprompts int) memory.Observation {
	g.obs++
	t := weightedTypes[g.r.IntN(len(weightedTypes))]
	id := p.idents[g.r.IntN(len(p.idents))]
	file := p.files[g.r.IntN(len(p.files))]
	var ttl string
	switch t {
	case memory.TypeProblem, memory.TypeBugfix, memory.TypeWarning:
		ttl = fmt.Sprintf(problemTitles[g.r.IntN(len(problemTitles))], p.errs[g.r.IntN(len(p.errs))], id)
	default:
		ttl = fmt.Sprintf(titles[g.r.IntN(len(titles))], id, file, words[g.zipf.Uint64()])
	}
	var narr []string
	for range 2 + g.r.IntN(4) {
		narr = append(narr, g.sentence(p))
	}
	o := memory.Observation{
		UUID:      fmt.Sprintf("%s-o%03d", session, i),
		SessionID: session, Type: t, Title: ttl,
		Subtitle:     g.sentence(p),
		Narrative:    strings.Join(narr, " "),
		ToolName:     tools[g.r.IntN(len(tools))],
		PromptNumber: 1 + i*nprompts/n,
		AgentType:    "build",
	}
	for range 1 + g.r.IntN(3) {
		o.Facts = append(o.Facts, g.sentence(p))
	}
	for range 1 + g.r.IntN(3) {
		o.Concepts = append(o.Concepts, concepts[g.r.IntN(len(concepts))])
	}
	for range g.r.IntN(4) {
		o.FilesRead = append(o.FilesRead, p.files[g.r.IntN(len(p.files))])
	}
	if t != memory.TypeDiscovery && t != memory.TypeNote {
		o.FilesModified = append(o.FilesModified, file)
	}
	o.Normalize()
	return o
}

func (g *gen) prompt(p *projectVocab) string {
	return fmt.Sprintf(promptForms[g.r.IntN(len(promptForms))], p.idents[g.r.IntN(len(p.idents))],
		p.files[g.r.IntN(len(p.files))]) + " " + g.sentence(p)
}

func (g *gen) summary(p *projectVocab, session string, obs []memory.Observation, at time.Time) memory.Summary {
	var done, learned, decisions []string
	files := map[string]bool{}
	for _, o := range obs {
		switch o.Type {
		case memory.TypeDecision:
			decisions = append(decisions, o.Title)
		case memory.TypeDiscovery, memory.TypeProblem:
			learned = append(learned, o.Title)
		default:
			done = append(done, o.Title)
		}
		for _, f := range o.FilesModified {
			files[f] = true
		}
	}
	cap3 := func(s []string) string {
		if len(s) > 3 {
			s = s[:3]
		}
		return strings.Join(s, "; ")
	}
	s := memory.Summary{
		UUID: session + "-s", SessionID: session,
		Request:      g.prompt(p),
		Investigated: g.sentence(p),
		Learned:      cap3(learned),
		Completed:    cap3(done),
		NextSteps:    g.sentence(p),
		Decisions:    cap3(decisions),
		Concepts:     []string{concepts[g.r.IntN(len(concepts))]},
		Generator:    "extractive",
		CreatedAt:    at.Add(time.Minute),
		CoversUntil:  at,
	}
	s.Files = slices.Sorted(maps.Keys(files))
	s.Text = strings.Join([]string{s.Request, s.Learned, s.Completed, s.NextSteps}, "\n")
	return s
}
