package recall

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/tokens"
)

// Entry explains one item of a block.
type Entry struct {
	Ref       string      `json:"ref"`  // #12 for an observation, S3 for a summary
	Kind      string      `json:"kind"` // observation or summary
	Group     string      `json:"group"`
	ID        int64       `json:"id"`
	SessionID string      `json:"session_id"`
	Type      memory.Type `json:"type,omitempty"`
	Title     string      `json:"title,omitempty"`
	Date      string      `json:"date"`
	Score     float64     `json:"score,omitempty"`
	Factors   *Factors    `json:"factors,omitempty"`
	Shortened bool        `json:"shortened,omitempty"` // cut at a sentence or clause boundary
	Tokens    int         `json:"tokens"`              // estimate of the item's text
	// Stale says what moved in the files it cites since it was recorded
	// ("stale: a.go changed"); a summary is stale when it quotes a stale
	// observation.
	Stale string `json:"stale,omitempty"`
}

// Omitted counts what the block leaves out. Counting stops at countCap
// (so a huge project costs no more than a big one); a count that reached it
// is a lower bound, marked AtLeast, and printed as "1000+".
type Omitted struct {
	Observations int  `json:"observations"`
	Sessions     int  `json:"sessions"` // earlier sessions whose summary is not shown
	AtLeast      bool `json:"at_least,omitempty"`
}

// countCap is where counting stops.
const countCap = 1000

// counts renders the two counts of o.
func (o Omitted) counts() (obs, sessions string) {
	obs, sessions = fmt.Sprint(o.Observations), fmt.Sprint(o.Sessions)
	if o.AtLeast {
		obs += "+"
		sessions += "+"
	}
	return obs, sessions
}

// Result is a built block and how it was made.
type Result struct {
	Project   string   `json:"project"`
	SessionID string   `json:"session_id,omitempty"`
	Mode      Mode     `json:"mode"`
	Format    Format   `json:"format"`
	Compress  Compress `json:"compress"`
	// Text is the block, exactly as `mem inject` prints it; empty when the
	// project has no memory yet (xml, text) or nothing fits the budget.
	Text     string  `json:"text"`
	Tokens   int     `json:"tokens"` // tokens.Estimate(Text)
	Chars    int     `json:"chars"`  // len(Text) in bytes
	Budget   int     `json:"budget"`
	MaxChars int     `json:"max_chars"`
	Empty    bool    `json:"empty"` // the project has no memory yet
	Entries  []Entry `json:"entries"`
	Omitted  Omitted `json:"omitted"`
	// Checked counts the candidates whose cited files were checked, Stale
	// those marked stale and Gone those left out because their files went.
	Checked  int      `json:"checked,omitempty"`
	StaleN   int      `json:"stale,omitempty"`
	GoneN    int      `json:"gone,omitempty"`
	Weights  Weights  `json:"weights"`
	HalfLife string   `json:"half_life"`
	Keywords []string `json:"keywords,omitempty"`
}

// item is a candidate for the block.
type item struct {
	group string // current, sessions or index
	obs   *memory.Observation
	sum   *memory.Summary
	entry Entry
	// gated and given: the last gate has run on the item, and lets it
	// through (given).
	gated, given bool
	// For a summary: the retired observations it quotes (entry.Stale says
	// all that no longer holds).
	retired string
}

// pass runs the last gate on the way out once, when the item is about to
// be chosen (not on every candidate: most are never shown): what the
// instruction check holds back is left out, and counted as omitted; the
// rest passes the privacy filter again; untrusted text is given in mem's
// own words (internal/guard).
func (it *item) pass() bool {
	if it.gated {
		return it.given
	}
	it.gated, it.given = true, true
	switch {
	case it.obs != nil:
		it.given = guard.ForAgent(it.obs)
		it.entry.Title = it.obs.Title
	case it.sum != nil:
		it.given = guard.SummaryForAgent(it.sum)
	}
	return it.given
}

// How much is read: enough candidates to fill any sensible budget, bounded
// so that the cost does not grow with the database.
const (
	recentLimit      = 300  // newest observations of the project
	importantLimit   = 100  // newest decisions, problems and warnings
	personalLimit    = 50   // newest observations of the personal tier
	personalShare    = 0.15 // of the budget at most, the personal tier first
	currentLimit     = 200  // newest observations of the current session
	startSummaries   = 6
	compactSummaries = 2
)

// importantTypes are the types of which the block reads importantLimit
// beyond the recent ones.
var importantTypes = []memory.Type{memory.TypeDecision, memory.TypeProblem, memory.TypeWarning}

// phase is a run of items that may use the budget up to share of it.
type phase struct {
	items []*item
	share float64
}

// Build builds the memory block for req. A project or session that does not
// exist gives an empty block, not an error.
func Build(ctx context.Context, src Source, req Request, set Settings) (Result, error) {
	req = req.normalize(set)
	res := Result{SessionID: req.SessionID, Mode: req.Mode, Format: req.Format, Compress: req.Compress,
		Budget: req.Budget, MaxChars: req.MaxChars, Weights: set.Weights, HalfLife: set.HalfLife.String(),
		Entries: []Entry{}}

	var sess *memory.Session
	if req.SessionID != "" {
		s, err := src.Session(ctx, req.SessionID)
		switch {
		case err == nil:
			sess = &s
		case !errors.Is(err, memory.ErrNotFound):
			return res, fmt.Errorf("reading session %s: %w", req.SessionID, err)
		}
	}
	if req.Project == "" && sess != nil {
		req.Project = sess.Project
	}
	res.Project = req.Project
	if req.Project == "" {
		res.Empty = true
		return res, nil
	}
	if req.AgentType == "" && sess != nil {
		req.AgentType = sess.AgentType
	}

	var current, prompts = []memory.Observation(nil), []memory.Prompt(nil)
	if sess != nil {
		var err error
		if current, err = src.SessionObservations(ctx, sess.ID, currentLimit); err != nil {
			return res, err
		}
		if req.Prompt == "" {
			if prompts, err = src.Prompts(ctx, sess.ID); err != nil {
				return res, err
			}
		}
	}
	nSummaries := startSummaries
	if req.Mode == ModeCompact {
		nSummaries = compactSummaries
	}
	summaries, err := src.RecentSummaries(ctx, req.Project, req.SessionID, nSummaries)
	if err != nil {
		return res, err
	}
	recent, err := src.RecentBriefs(ctx, req.Project, nil, recentLimit, nil)
	if err != nil {
		return res, err
	}
	// The newest importantLimit decisions, problems and warnings: those
	// among recent are recent's, so only the older ones are read, as many
	// as recent leaves (none when recent holds every observation).
	var important []memory.Observation
	if len(recent) == recentLimit {
		n := importantLimit
		for _, o := range recent {
			if slices.Contains(importantTypes, o.Type) {
				n--
			}
		}
		if n > 0 {
			if important, err = src.RecentBriefs(ctx, req.Project, importantTypes, n, &recent[len(recent)-1]); err != nil {
				return res, err
			}
		}
	}
	// The personal tier comes with every project's block.
	var personal []memory.Observation
	if req.Project != memory.PersonalProject {
		if personal, err = src.RecentBriefs(ctx, memory.PersonalProject, nil, personalLimit, nil); err != nil {
			return res, err
		}
	}
	totalObs, err := src.CountObservationsUpTo(ctx, req.Project, countCap)
	if err != nil {
		return res, err
	}
	totalSum, err := src.CountSummariesUpTo(ctx, req.Project, req.SessionID, countCap)
	if err != nil {
		return res, err
	}
	capped := totalObs >= countCap || totalSum >= countCap

	// Keywords: the prompt, or what the current session asked and touched.
	if req.Prompt != "" {
		res.Keywords = keywordsOf(req.Prompt)
	} else if sess != nil {
		texts := make([]string, 0, len(prompts)+1)
		for i := len(prompts) - 1; i >= 0; i-- { // newest prompt first
			texts = append(texts, prompts[i].Text)
		}
		var files []string
		files = append(files, sess.FilesRead...)
		for _, o := range current {
			files = append(files, o.FilesModified...)
		}
		res.Keywords = keywordsOf(texts...)
		for _, w := range fileWords(files) {
			if len(res.Keywords) < maxKeywords && !slices.Contains(res.Keywords, w) {
				res.Keywords = append(res.Keywords, w)
			}
		}
	}
	sc := &scorer{ref: req.Now, halfLife: set.HalfLife, weights: set.Weights, agentType: req.AgentType,
		keywords: map[string]bool{}}
	for _, k := range res.Keywords {
		sc.keywords[k] = true
	}
	if sc.ref.IsZero() {
		for _, l := range [][]memory.Observation{recent, current} {
			for _, o := range l {
				if o.CreatedAt.After(sc.ref) {
					sc.ref = o.CreatedAt
				}
			}
		}
	}

	// Candidates.
	var currentItems, summaryItems, indexItems []*item
	seen := map[int64]bool{}
	if req.Mode == ModeCompact {
		for i := range current {
			currentItems = append(currentItems, obsItem(&current[i], groupCurrent, sc))
			seen[current[i].ID] = true
		}
		rank(currentItems)
	}
	for i := range summaries {
		s := &summaries[i]
		// Summaries are taken newest first: their score is their recency.
		summaryItems = append(summaryItems, &item{group: groupSessions, sum: s, entry: Entry{
			Ref: fmt.Sprintf("S%d", s.ID), Kind: memory.KindSummary, Group: groupSessions, ID: s.ID,
			SessionID: s.SessionID, Title: summaryTitle(s), Date: day(summaryDate(s)), Score: sc.recency(summaryDate(s))}})
	}
	for _, l := range [][]memory.Observation{recent, important} {
		for i := range l {
			if seen[l[i].ID] {
				continue
			}
			seen[l[i].ID] = true
			indexItems = append(indexItems, obsItem(&l[i], groupIndex, sc))
		}
	}
	if rs, ok := src.(RetiredSource); ok && len(summaryItems) > 0 {
		if err := markRetired(ctx, rs, summaryItems); err != nil {
			return res, err
		}
	}
	var cc *citeCheck
	if req.Citations != nil {
		// The best ranked first; then, after each fill, whatever the block
		// shows that is not checked yet (what it cannot reach is never
		// checked, so the cost stays with what the block shows).
		cc = newCiteCheck(req.Citations, &res)
		var err error
		if currentItems, err = cc.top(ctx, currentItems, req.Budget/firstCheckTokens+1); err != nil {
			return res, err
		}
		if indexItems, err = cc.top(ctx, indexItems, req.Budget/firstCheckTokens+1); err != nil {
			return res, err
		}
	}
	markSummaries(cc, summaryItems)
	rank(indexItems)
	var personalItems []*item
	for i := range personal {
		personalItems = append(personalItems, obsItem(&personal[i], groupPersonal, sc))
	}
	rank(personalItems)

	if totalObs == 0 && totalSum == 0 && len(current) == 0 && len(personal) == 0 {
		res.Empty = true
		r := newRenderer(req)
		if t := r.empty(req.Project); fits(t, req.Budget, req.MaxChars) {
			res.setText(t)
		}
		return res, nil
	}

	// The current session's observations are counted in totalObs unless the
	// session belongs to another project.
	maxObs := totalObs + len(personal)
	for _, it := range currentItems {
		if it.obs.Project != req.Project {
			maxObs++
		}
	}
	for round := 0; ; round++ {
		var phases []phase
		if len(personalItems) > 0 {
			phases = append(phases, phase{personalItems, personalShare})
		}
		if req.Mode == ModeCompact {
			phases = append(phases, phase{currentItems, 0.5}, phase{summaryItems, 0.7}, phase{indexItems, 1})
		} else {
			phases = append(phases, phase{summaryItems, 0.6}, phase{indexItems, 1})
		}
		fillBlock(&res, newRenderer(req), req, phases, Omitted{Observations: maxObs, Sessions: totalSum, AtLeast: capped})
		if cc == nil || round == maxCheckRounds {
			return res, nil
		}
		shown := map[int64]bool{}
		for _, e := range res.Entries {
			if e.Kind == memory.KindObservation {
				shown[e.ID] = true
			}
		}
		var n1, n2 int
		var err error
		if currentItems, n1, err = cc.run(ctx, currentItems, func(_ int, it *item) bool { return shown[it.obs.ID] }); err != nil {
			return res, err
		}
		if indexItems, n2, err = cc.run(ctx, indexItems, func(_ int, it *item) bool { return shown[it.obs.ID] }); err != nil {
			return res, err
		}
		if n1+n2 == 0 {
			return res, nil
		}
		rank(currentItems)
		rank(indexItems)
		markSummaries(cc, summaryItems)
	}
}

func obsItem(o *memory.Observation, group string, sc *scorer) *item {
	score, f := sc.score(*o)
	return &item{group: group, obs: o, entry: Entry{
		Ref: fmt.Sprintf("#%d", o.ID), Kind: memory.KindObservation, Group: group, ID: o.ID,
		SessionID: o.SessionID, Type: o.Type, Title: o.Title, Date: day(o.CreatedAt.UTC()),
		Score: score, Factors: &f}}
}

// rank orders items by score, then newest, then highest id.
func rank(items []*item) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.entry.Score != b.entry.Score {
			return a.entry.Score > b.entry.Score
		}
		if !a.obs.CreatedAt.Equal(b.obs.CreatedAt) {
			return a.obs.CreatedAt.After(b.obs.CreatedAt)
		}
		return a.obs.ID > b.obs.ID
	})
}

func fits(text string, budget, maxChars int) bool {
	return tokens.Estimate(text) <= budget && (maxChars < 0 || len(text) <= maxChars)
}

func (r *Result) setText(t string) {
	r.Text = t
	r.Tokens = tokens.Estimate(t)
	r.Chars = len(t)
}

// chosen is an item in the block with the rendering that fitted.
type chosen struct {
	it *item
	v  version
}

// fillBlock selects items phase by phase within the budget and renders the
// block. Costs are summed per part; since the estimate is subadditive the
// sum bounds the whole, and the rendered block is checked again anyway.
func fillBlock(res *Result, r renderer, req Request, phases []phase, all Omitted) {
	for _, minimal := range []bool{false, true} {
		frame := r.head(req.Project, minimal) + r.tail(minimal) + r.omitted(all, minimal)
		if !fits(frame, req.Budget, req.MaxChars) {
			continue
		}
		picked := pick(r, req, phases, frame)
		for {
			text, entries, omitted := render(r, req, picked, minimal, all)
			if fits(text, req.Budget, req.MaxChars) || len(picked) == 0 {
				if fits(text, req.Budget, req.MaxChars) {
					res.setText(text)
					res.Entries = entries
					res.Omitted = omitted
				}
				return
			}
			picked = picked[:len(picked)-1]
		}
	}
	res.Omitted = all
}

// pick chooses the items and their renderings.
func pick(r renderer, req Request, phases []phase, frame string) []chosen {
	usedTok, usedChars := tokens.Estimate(frame), len(frame)
	avail := req.Budget - usedTok
	open := map[string]bool{}
	var out []chosen
	for pi, ph := range phases {
		limit := req.Budget
		if pi < len(phases)-1 {
			limit = req.Budget - avail + int(ph.share*float64(avail))
		}
		for _, it := range ph.items {
			if !it.pass() {
				continue
			}
			g := r.group(it)
			extraTok, extraChars := 0, 0
			if !open[g] {
				wrap := r.groupHead(g) + r.groupTail(g)
				extraTok, extraChars = tokens.Estimate(wrap), len(wrap)
			}
			ok := false
			for _, v := range r.versions(it) {
				t := tokens.Estimate(v.text) + extraTok
				c := len(v.text) + extraChars
				if usedTok+t <= limit && (req.MaxChars < 0 || usedChars+c <= req.MaxChars) {
					usedTok += t
					usedChars += c
					open[g] = true
					out = append(out, chosen{it, v})
					ok = true
					break
				}
			}
			if !ok && req.Compress == Conservative {
				break
			}
		}
	}
	return out
}

// render writes the block with the picked items in group order.
func render(r renderer, req Request, picked []chosen, minimal bool, all Omitted) (string, []Entry, Omitted) {
	byGroup := map[string][]chosen{}
	for _, c := range picked {
		g := r.group(c.it)
		byGroup[g] = append(byGroup[g], c)
	}
	var b []byte
	b = append(b, r.head(req.Project, minimal)...)
	entries := []Entry{}
	shownObs, shownSessions := 0, 0
	for _, g := range r.groups() {
		cs := byGroup[g]
		if len(cs) == 0 {
			continue
		}
		b = append(b, r.groupHead(g)...)
		for _, c := range cs {
			b = append(b, c.v.text...)
			e := c.it.entry
			e.Shortened = c.v.shortened
			e.Tokens = tokens.Estimate(c.v.text)
			entries = append(entries, e)
			if c.it.sum != nil {
				shownSessions++
			} else {
				shownObs++
			}
		}
		b = append(b, r.groupTail(g)...)
	}
	om := Omitted{Observations: max(0, all.Observations-shownObs), Sessions: max(0, all.Sessions-shownSessions),
		AtLeast: all.AtLeast}
	b = append(b, r.omitted(om, minimal)...)
	b = append(b, r.tail(minimal)...)
	return string(b), entries, om
}

// summaryTitle names a summary in an explanation: the first line of its
// request, else of its text.
func summaryTitle(s *memory.Summary) string {
	for _, t := range []string{s.Request, s.Text, s.Completed} {
		if t = strings.TrimSpace(t); t != "" {
			first, _, _ := strings.Cut(t, "\n")
			return first
		}
	}
	return ""
}

// summaryDate dates a summary by the work it covers rather than by when it
// was written, so that a nightly run does not make old sessions look new.
func summaryDate(s *memory.Summary) time.Time {
	if !s.CoversUntil.IsZero() {
		return s.CoversUntil.UTC()
	}
	return s.CreatedAt.UTC()
}

// markRetired marks each summary that quotes an observation of its session
// that a correction retired: "retired: #5 (see #6)".
func markRetired(ctx context.Context, rs RetiredSource, summaries []*item) error {
	ids := make([]string, len(summaries))
	for i, it := range summaries {
		ids[i] = it.sum.SessionID
	}
	retired, err := rs.RetiredObservations(ctx, ids)
	if err != nil {
		return err
	}
	for _, it := range summaries {
		var refs []string
		for _, o := range retired {
			if o.SessionID == it.sum.SessionID && it.sum.Quotes(o.Title) {
				refs = append(refs, fmt.Sprintf("#%d (see #%d)", o.ID, o.SupersededBy))
			}
		}
		if len(refs) > 0 {
			it.retired = "retired: " + strings.Join(refs, ", ")
		}
	}
	return nil
}
