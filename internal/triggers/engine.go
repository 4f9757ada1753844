package triggers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memhq/mem/internal/collector"
	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/text"
	"github.com/memhq/mem/internal/tokens"
)

// Source names, as entries carry them and config keys switch them.
const (
	SourceMemory    = "memory-triggers"
	SourceFiles     = "file-activity"
	SourceAgents    = "directory-agents"
	SourceReadme    = "directory-readme"
	SourceRules     = "rules-injector"
	SourceKeywords  = "keyword-detector"
	SourceCustom    = "custom"
	markObservation = "observation" // an observation registered for the session
	markTrigger     = "trigger"     // a prompt trigger, for carry-over
	markDirectory   = "directory"   // a directory whose AGENTS.md / README.md were looked at
	markRule        = "rule"        // a rule file applied
	markSession     = "session"     // an earlier session given to the session
	markFile        = "file"        // a file whose history was looked up, with the prompt it was under
)

// Pending is where the sources register context and keep their
// once-per-session marks; the store satisfies it.
type Pending interface {
	RegisterPending(ctx context.Context, e memory.PendingEntry) error
	RegisterPendingOnce(ctx context.Context, e memory.PendingEntry, kind, key string) (bool, error)
	RaisePending(ctx context.Context, session, source, prefix string, p memory.Priority) error
	MarkOnce(ctx context.Context, session, kind string, keys []string, at time.Time) ([]string, error)
	Marked(ctx context.Context, session, kind string, keys []string) (map[string]bool, error)
	TouchMarks(ctx context.Context, session, kind string, keys []string, at time.Time) error
	RecentMarks(ctx context.Context, session, kind string, limit int) ([]string, error)
}

// FileMemory finds what memory knows about a file; the store satisfies it.
type FileMemory interface {
	ObservationsForFile(ctx context.Context, project, path string, limit int) ([]memory.Observation, error)
	// FileHistory gives the sessions as observations with their ID and
	// SessionID only; Observations reads them whole.
	FileHistory(ctx context.Context, project string, paths []string, limit int) (memory.FileHistory, error)
	Observations(ctx context.Context, ids []int64) ([]memory.Observation, error)
	// FileWords gives the words of the observations ids and of the newest
	// limit of each of paths (as ObservationsForFile gives them), those of
	// sessions only: observations with their ID, SessionID and searchable
	// text.
	FileWords(ctx context.Context, project string, paths []string, limit int, ids []int64, sessions []string) ([]memory.Observation, error)
}

// SessionSummaries gives sessions' summaries; the store satisfies it.
type SessionSummaries interface {
	// SummaryHeads gives the summaries of sessions that have one with
	// their ids, request, text, date, provenance and review; their
	// sections only when they have no provenance.
	SummaryHeads(ctx context.Context, sessionIDs []string) ([]memory.Summary, error)
}

// SessionPrompts gives a session's latest prompt; the store satisfies it.
type SessionPrompts interface {
	LatestPrompt(ctx context.Context, sessionID string) (memory.Prompt, bool, error)
}

// Searcher searches memory, ranked by r; search.Over gives one of a store.
type Searcher interface {
	Search(ctx context.Context, q search.Query, r search.Ranking) ([]search.Hit, error)
}

// Checker tells how the files observations cite, besides paths, stand
// against the work tree now (*cite.Checker).
type Checker interface {
	CheckBesides(ctx context.Context, ids []int64, paths []string) (map[int64]memory.Standing, error)
}

// Keyword is a keyword-detector pair: a prompt containing Word (as a whole
// word, any case) gets Text.
type Keyword struct {
	Word string
	Text string
}

// Config switches the sources and sets their limits.
type Config struct {
	MemoryTriggers  bool
	FileActivity    bool
	DirectoryAgents bool
	DirectoryReadme bool
	Rules           bool
	Keywords        bool
	KeywordPairs    []Keyword
	MinRelevance    float64 // 0..1
	PromptBudget    int     // tokens one prompt's memory triggers may register
	FileBudget      int     // tokens of one AGENTS.md, README.md or rule file
	CarryOver       int     // last triggers carried to the next prompt
}

// Engine runs the sources for one session's events.
type Engine struct {
	Pending Pending
	Files   FileMemory // may be nil: no file-activity or path lookups
	Search  Searcher   // may be nil: no searches for symbols and questions
	// Prompts may be nil: a touched file's history then comes newest first
	// only, not first the sessions its prompt is about.
	Prompts SessionPrompts
	// Summaries may be nil: a file's history then gives each session's
	// observation of the file, not what the session was asked.
	Summaries SessionSummaries
	// Citations may be nil: then cited files are not checked. When set, an
	// observation whose cited files are gone is not given, and one whose
	// files changed is given marked stale, ranked lower.
	Citations Checker
	Config    Config
	Now       func() time.Time
}

// Session says whose event it is.
type Session struct {
	ID      string
	Project string
	Root    string // project root folder; empty disables directory and rule sources
}

// Report says what an event registered, for logs and tests.
type Report struct {
	Triggers   []Trigger `json:"triggers,omitempty"`
	Registered []string  `json:"registered,omitempty"` // source:id
}

func (e *Engine) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

// maxHitsPerTrigger bounds each search.
const maxHitsPerTrigger = 8

// OnPrompt analyses a user prompt: keywords register their text; symbols,
// paths and questions become searches (helped by the session's last few
// triggers) whose results above the minimum relevance are registered, best
// first, within the prompt budget, never an observation the session was
// already given. A prompt without triggers of its own searches nothing.
func (e *Engine) OnPrompt(ctx context.Context, s Session, prompt string) (Report, error) {
	var rep Report
	var errs []error
	if e.Config.Keywords {
		if err := e.keywords(ctx, s, prompt, &rep); err != nil {
			errs = append(errs, err)
		}
	}
	if e.Config.MemoryTriggers {
		if err := e.memoryTriggers(ctx, s, prompt, &rep); err != nil {
			errs = append(errs, err)
		}
	}
	return rep, errors.Join(errs...)
}

func (e *Engine) keywords(ctx context.Context, s Session, prompt string, rep *Report) error {
	for _, k := range e.Config.KeywordPairs {
		if strings.TrimSpace(k.Word) == "" || strings.TrimSpace(k.Text) == "" {
			continue
		}
		re, err := regexp.Compile(`(?i)(^|[^\pL\pN_])` + regexp.QuoteMeta(k.Word) + `($|[^\pL\pN_])`)
		if err != nil || !re.MatchString(prompt) {
			continue
		}
		en := memory.PendingEntry{SessionID: s.ID, Source: SourceKeywords, EntryID: k.Word,
			Content: contextText(k.Text, e.fileBudget()), Priority: memory.PriorityHigh, CreatedAt: e.now()}
		if err := e.Pending.RegisterPending(ctx, en); err != nil {
			return err
		}
		rep.Registered = append(rep.Registered, en.Source+":"+en.EntryID)
	}
	return nil
}

type candidate struct {
	obs       memory.Observation
	relevance float64
}

func (e *Engine) memoryTriggers(ctx context.Context, s Session, prompt string, rep *Report) error {
	current := Extract(prompt)
	rep.Triggers = current
	if len(current) == 0 {
		// "thanks", "run the tests": nothing to look up, and the last
		// prompt's triggers were answered at that prompt.
		return nil
	}
	limit := e.Config.CarryOver
	var previous []string
	if limit > 0 {
		var err error
		if previous, err = e.Pending.RecentMarks(ctx, s.ID, markTrigger, limit); err != nil {
			return err
		}
	}
	all := append([]Trigger(nil), current...)
	seen := map[string]bool{}
	for _, t := range current {
		seen[t.Key()] = true
	}
	for _, k := range previous {
		if t, ok := ParseKey(k); ok && !seen[k] {
			all = append(all, t)
			seen[k] = true
		}
	}
	keys := make([]string, len(current))
	for i, t := range current {
		keys[len(current)-1-i] = t.Key() // the first trigger of the prompt counts as newest
	}
	if err := e.Pending.TouchMarks(ctx, s.ID, markTrigger, keys, e.now()); err != nil {
		return err
	}
	cands, err := e.lookup(ctx, s, all, len(current))
	if err != nil {
		return err
	}
	if cands, err = e.standing(ctx, cands, nil); err != nil {
		return err
	}
	best := map[int64]candidate{}
	for _, c := range cands {
		if c.obs.SessionID == s.ID {
			continue // the session knows what it did itself
		}
		if c.relevance > best[c.obs.ID].relevance {
			best[c.obs.ID] = c
		}
	}
	list := make([]candidate, 0, len(best))
	for _, c := range best {
		if c.relevance > e.minRelevance() {
			list = append(list, c)
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].relevance != list[j].relevance {
			return list[i].relevance > list[j].relevance
		}
		return list[i].obs.ID > list[j].obs.ID
	})
	ids := make([]string, len(list))
	for i, c := range list {
		ids[i] = fmt.Sprint(c.obs.ID)
	}
	given, err := e.Pending.Marked(ctx, s.ID, markObservation, ids)
	if err != nil {
		return err
	}
	requests, err := e.requests(ctx, list)
	if err != nil {
		return err
	}
	budget := e.promptBudget()
	taken, top := 0, 0.0
	for _, c := range list {
		// The last gate (internal/guard): a held observation is not given,
		// an untrusted one only in mem's words.
		if given[fmt.Sprint(c.obs.ID)] || !guard.ForAgent(&c.obs) {
			continue
		}
		// A few of the best, and only those nearly as relevant as the best:
		// past that, more observations bring more noise than answers.
		if taken == maxPromptObservations || c.relevance < closeToBest*top {
			break
		}
		if taken == 0 {
			top = c.relevance
		}
		taken++
		// Each observation is cut to its own share, not to what is left: a
		// stub of the tenth hit is worth less than room for the next prompt.
		// An observation of a session that holds its request is given as its
		// headline, with the request at the first of the session's: what the
		// session was for, and the id to fetch for the rest.
		content := ObservationText(c.obs, min(maxObservationTokens, e.promptBudget()))
		r, ok := requests[c.obs.SessionID]
		if ok {
			content = observationHead(c.obs)
			if r != "" {
				content += "\nrequest: " + r
			}
			content = Trim(content, min(maxObservationTokens, e.promptBudget()))
		}
		cost := tokens.Estimate(content)
		if cost > budget {
			continue
		}
		registered, err := e.registerObservation(ctx, s, SourceMemory, c.obs, content, memory.PriorityNormal)
		if err != nil {
			return err
		}
		if registered {
			budget -= cost
			rep.Registered = append(rep.Registered, SourceMemory+":#"+fmt.Sprint(c.obs.ID))
			if ok {
				requests[c.obs.SessionID] = "" // the request once
			}
		}
	}
	return nil
}

// requests returns the request of each session of cands whose summary
// holds one (a coding session's first prompt), cut to maxPromptRequestChars.
func (e *Engine) requests(ctx context.Context, cands []candidate) (map[string]string, error) {
	out := map[string]string{}
	if e.Summaries == nil || len(cands) == 0 {
		return out, nil
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.obs.SessionID
	}
	sums, err := e.Summaries.SummaryHeads(ctx, ids)
	if err != nil {
		return nil, err
	}
	for i := range sums {
		if r := text.OneLine(sums[i].Request); r != "" && guard.SummaryForAgent(&sums[i]) {
			out[sums[i].SessionID] = text.Cut(r, maxPromptRequestChars)
		}
	}
	return out, nil
}

// maxPromptObservations bounds the observations one prompt registers, and
// closeToBest is the share of the best one's relevance the others need (see
// scripts/eval: more, or less alike, lowers precision more than it raises hits).
const (
	maxPromptObservations = 3
	closeToBest           = 0.9
)

// maxPromptRequestChars bounds the request a prompt's entry quotes: about a
// commit message's subject and the sentence after it.
const maxPromptRequestChars = 200

// maxSearchHits bounds the one search a prompt makes.
const maxSearchHits = 20

// lookup runs the triggers: a path asks which observations touched the
// file; the symbols, questions and unknown paths go to memory search as one
// query (a search costs milliseconds on a large database, and OR-ranking
// serves several triggers at once), each hit scored against each of the
// first own triggers (the prompt's; those carried over from earlier prompts
// help the ranking but make no hit relevant: their answers were given then).
func (e *Engine) lookup(ctx context.Context, s Session, all []Trigger, own int) ([]candidate, error) {
	var out []candidate
	var searched []Trigger
	var judged []int // indexes into searched of the prompt's own triggers
	for i, t := range all {
		found := false
		if t.Kind == KindPath && e.Files != nil && i < own {
			for _, p := range pathForms(s.Root, t.Text) {
				obs, err := e.Files.ObservationsForFile(ctx, s.Project, p, maxHitsPerTrigger)
				if err != nil {
					return nil, err
				}
				for _, o := range obs {
					rel := 0.8
					if slices.Contains(o.FilesModified, p) {
						rel = 0.9
					}
					out = append(out, candidate{obs: o, relevance: rel})
					found = true
				}
			}
		}
		if !found {
			if i < own {
				judged = append(judged, len(searched))
			}
			searched = append(searched, t)
		}
	}
	if e.Search == nil || len(searched) == 0 {
		return out, nil
	}
	texts := make([]string, len(searched))
	for i, t := range searched {
		texts[i] = t.Text
		if t.Kind == KindPath {
			texts[i] = filepath.Base(t.Text)
		}
	}
	q := search.Query{Text: strings.Join(texts, " "), Project: s.Project, Kinds: []search.Kind{search.KindObservation},
		Limit: maxSearchHits}
	hits, err := e.Search.Search(ctx, q, promptRanking())
	if err != nil {
		return nil, fmt.Errorf("searching memory for %q: %w", q.Text, err)
	}
	top := 0.0
	words := make([]string, len(hits)) // each hit's text, "" for one with no observation
	docs := make([]string, 0, len(hits))
	for i, h := range hits {
		top = max(top, h.Score)
		if h.Observation != nil {
			words[i] = observationWords(*h.Observation)
			docs = append(docs, words[i])
		}
	}
	weights := make([]map[string]float64, len(searched))
	for _, i := range judged {
		weights[i] = TermWeights(queryTerms(texts[i]), docs)
	}
	for j, h := range hits {
		if h.Observation == nil {
			continue
		}
		rank := 0.0
		if top > 0 {
			rank = h.Score / top
		}
		rel := 0.0
		for _, i := range judged {
			rel = max(rel, Relevance(weights[i], words[j], rank))
		}
		out = append(out, candidate{obs: *h.Observation, relevance: rel})
	}
	return out, nil
}

// observationWords is an observation's searchable text, lower-cased.
func observationWords(o memory.Observation) string {
	return strings.ToLower(strings.Join([]string{o.Title, o.Subtitle, o.Narrative, strings.Join(o.Facts, " "),
		strings.Join(o.Concepts, " "), strings.Join(o.FilesRead, " "), strings.Join(o.FilesModified, " ")}, " "))
}

// TermWeights weighs a trigger's terms by how few of the search's hits
// (docs, lower-cased texts) contain them: log((n+1)/(df+0.5)). A word in
// every hit ("Caroline" in a conversation with Caroline) says little about
// which hit answers; a word in one says much.
func TermWeights(terms []string, docs []string) map[string]float64 {
	w := make(map[string]float64, len(terms))
	for _, t := range terms {
		df := 0
		for _, d := range docs {
			if strings.Contains(d, t) {
				df++
			}
		}
		w[t] = math.Log((float64(len(docs)) + 1) / (float64(df) + 0.5))
	}
	return w
}

// promptRanking is mem search's ranking without the session-summary and
// neighbour terms: a prompt's triggers name things (identifiers, files)
// rather than ask open questions, and the hook must answer in milliseconds.
func promptRanking() search.Ranking {
	r := search.DefaultRanking()
	r.SessionWeight, r.SessionExpand = 0, 0
	r.Neighbors, r.NeighborDocs, r.NeighborWeight = 0, 0, 0
	r.Candidates = 50
	return r
}

// Relevance scores a search hit for a trigger on 0..1: the weighted share
// of the trigger's terms (weights from TermWeights) that text, the hit's
// lower-cased text, contains (search ranks a partial match first when
// nothing better exists, so a score relative to the best hit alone says
// nothing about a weak best), scaled by its rank relative to the best hit:
// coverage × (0.6 + 0.4 × rank). A hit with one term of a trigger that has
// several scores 0.
func Relevance(weights map[string]float64, text string, rank float64) float64 {
	var have, all float64
	found := 0
	for t, w := range weights {
		all += w
		if strings.Contains(text, t) {
			have += w
			found++
		}
	}
	if found < min(2, len(weights)) || all <= 0 {
		return 0 // one word of several is a coincidence
	}
	return have / all * (0.6 + 0.4*rank)
}

// queryTerms are the lower-cased word stems of a trigger, identifiers split
// into their parts ("OrderService" gives order, servic), without noise words.
// A stem is a prefix of its word, so Relevance finds it in unstemmed text.
func queryTerms(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127)
	}) {
		for _, p := range text.SplitIdent(w) {
			p = strings.ToLower(p)
			st := text.Stem(p)
			if len(st) < 3 || seen[st] || text.IsNoise(p) || text.IsNoise(st) {
				continue
			}
			seen[st] = true
			out = append(out, st)
		}
	}
	return out
}

// OnFile registers what a touched file brings: what memory knows about it
// (higher priority when the file was edited), the AGENTS.md and README.md of
// its directories up to the project root the first time the session touches
// them, and the rule files whose globs match it, once per session.
func (e *Engine) OnFile(ctx context.Context, s Session, path string, edited bool) (Report, error) {
	var rep Report
	var errs []error
	rel, inside := relative(s.Root, path)
	if e.Config.FileActivity && e.Files != nil {
		if err := e.fileActivity(ctx, s, path, edited, &rep); err != nil {
			errs = append(errs, err)
		}
	}
	if inside && (e.Config.DirectoryAgents || e.Config.DirectoryReadme) {
		if err := e.directories(ctx, s, rel, &rep); err != nil {
			errs = append(errs, err)
		}
	}
	if inside && e.Config.Rules {
		if err := e.rules(ctx, s, rel, &rep); err != nil {
			errs = append(errs, err)
		}
	}
	return rep, errors.Join(errs...)
}

// A file event brings the file's history the way `git log -- FILE` shows
// it: one entry for each of the latest earlier sessions that touched it
// (fileSessionScan of them, however far back; a session that edited it
// forty times is one), each session at most once in a session whichever
// file or prompt brought it, and the file looked up once under each of the
// session's prompts. They are
// ranked by recency (1 / (1 + i/fileRecencyHalf) for the i-th newest) times
// 1 + filePromptBoost × how much of the session's prompt they hold relative
// to the one that holds most (their summary's request and text, their
// observations of the file; aboutPrompt), times what the session did to the
// file (fileOrigin: creating it, changing much of it). At most
// maxFileSessions are given; when a prompt scored them, only those within
// fileCloseShare of the best, and at least minFileSessions: fewer when a
// few stand out. An entry is the
// session's request (its summary) with its newest observation of the file
// when that fits in fileEntryTokens; without a summary, the observation.
// The values were chosen on the tuning repositories of scripts/eval code
// (scripts/codeeval/README.md).
const (
	maxFileSessions = 10
	minFileSessions = 5
	fileCloseShare  = 0.3
	fileSessionScan = 60
	fileWordScan    = 100
	fileEntryTokens = 40
	filePromptBoost = 10.0
	fileRecencyHalf = 10.0
	fileCreateBoost = 2.0
	fileChangeBoost = 0.5
)

// maxRequestChars bounds the request a file-history entry quotes: about the
// subject of a commit message and a little more.
const maxRequestChars = 100

// fileSession is one earlier session in a file's history.
type fileSession struct {
	obs    memory.Observation // its newest observation of the file
	whole  bool               // obs is read whole, not only its ids (readWhole)
	headed bool               // its summary was looked up (readSummaries)
	sum    *memory.Summary
	words  string  // what it holds of the prompt's words: its summary, its observations of the file
	weight float64 // what its standing leaves of its rank (memory.StaleWeight)
	score  float64
}

func (e *Engine) fileActivity(ctx context.Context, s Session, path string, edited bool, rep *Report) error {
	prio := memory.PriorityNormal
	if edited {
		prio = memory.PriorityHigh
	}
	forms := pathForms(s.Root, path)
	shown := path
	if rel, ok := relative(s.Root, path); ok {
		shown = rel
	}
	terms, asked, err := e.promptTerms(ctx, s)
	if err != nil {
		return err
	}
	// Under one prompt a file's history is looked up once: touched again
	// (an Edit after its Read), it has nothing to add but older sessions.
	// An edit raises what the first touch left waiting.
	fresh, err := e.Pending.MarkOnce(ctx, s.ID, markFile, []string{shown + "@" + strconv.Itoa(asked)}, e.now())
	if err != nil {
		return err
	}
	if len(fresh) == 0 {
		if edited {
			return e.Pending.RaisePending(ctx, s.ID, SourceFiles, collector.InGroup(shown, ""), prio)
		}
		return nil
	}
	fh, err := e.Files.FileHistory(ctx, s.Project, forms, fileSessionScan)
	if err != nil {
		return err
	}
	// Those whose other cited files changed or went are marked stale. The
	// file's history is what changed it: that the file itself changed since
	// an entry of its history is no news, and it is there, so no entry of
	// its history is gone.
	cands := make([]candidate, 0, len(fh.Sessions))
	for _, o := range fh.Sessions {
		if o.SessionID != s.ID {
			cands = append(cands, candidate{obs: o, relevance: 1})
		}
	}
	if cands, err = e.standing(ctx, cands, forms); err != nil {
		return err
	}
	if len(cands) == 0 {
		return nil
	}
	hist := make([]*fileSession, len(cands))
	bySession := make(map[string]*fileSession, len(cands))
	ids := make([]string, len(cands))
	for i, c := range cands {
		hist[i] = &fileSession{obs: c.obs, weight: c.relevance}
		bySession[c.obs.SessionID] = hist[i]
		ids[i] = c.obs.SessionID
	}
	// The words of each session's observations of the file: its newest
	// and those among the file's newer ones. Without a prompt's terms they
	// weigh nothing, and are not read.
	if len(terms) > 0 {
		obsIDs := make([]int64, len(hist))
		for i, h := range hist {
			obsIDs[i] = h.obs.ID
		}
		got, err := e.Files.FileWords(ctx, s.Project, forms, fileWordScan, obsIDs, ids)
		if err != nil {
			return err
		}
		for _, o := range got {
			if h := bySession[o.SessionID]; h != nil {
				h.words += " " + observationWords(o)
			}
		}
	}
	// Their summaries' words too; without terms only the summaries of the
	// sessions given are read, with them (readWhole).
	if len(terms) > 0 {
		if err := e.readSummaries(ctx, hist); err != nil {
			return err
		}
		for _, h := range hist {
			if h.sum != nil {
				h.words += " " + strings.ToLower(h.sum.Request+" "+h.sum.Text)
			}
		}
	}
	about := aboutPrompt(terms, hist)
	top := 0.0
	for _, a := range about {
		top = max(top, a)
	}
	origin := fileOrigin(fh, top > 0)
	for i, h := range hist {
		p := 0.0
		if top > 0 {
			p = about[i] / top
		}
		h.score = h.weight * (1 + filePromptBoost*p) * origin(h.obs.SessionID) / (1 + float64(i)/fileRecencyHalf)
	}
	sort.SliceStable(hist, func(i, j int) bool { return hist[i].score > hist[j].score })
	// A session given before (by another file, or by the prompt) is not
	// given again; the same entry is registered again only to raise its
	// priority while it waits.
	given, err := e.Pending.Marked(ctx, s.ID, markSession, ids)
	if err != nil {
		return err
	}
	again := map[string]bool{}
	taken, best := 0, 0.0
	for i, h := range hist {
		if taken == maxFileSessions {
			break
		}
		if best == 0 {
			best = h.score
		}
		// Fewer when the prompt makes a few stand out.
		if top > 0 && taken >= minFileSessions && h.score < fileCloseShare*best {
			break
		}
		// What the loop may still give is read whole, a few at a time, with
		// whether this session was given its entries before.
		if !h.whole {
			batch := hist[i:min(i+maxFileSessions-taken, len(hist))]
			if err := e.readWhole(ctx, batch); err != nil {
				return err
			}
			entries := make([]string, len(batch))
			for k, b := range batch {
				entries[k] = entryKey(b)
			}
			marked, err := e.Pending.Marked(ctx, s.ID, markObservation, entries)
			if err != nil {
				return err
			}
			maps.Copy(again, marked)
		}
		if given[h.obs.SessionID] && !again[entryKey(h)] {
			continue
		}
		if !guard.ForAgent(&h.obs) {
			continue
		}
		if h.sum != nil && !guard.SummaryForAgent(h.sum) {
			h.sum = nil
		}
		ok, err := e.registerHistory(ctx, s, shown, h, prio)
		if err != nil {
			return err
		}
		if ok {
			taken++
			rep.Registered = append(rep.Registered, SourceFiles+":"+historyID(h))
		}
	}
	return nil
}

// fileOrigin weighs the sessions of a file's history fh by what they did
// to the file: 1 + fileCreateBoost for the one that created it and, when no
// prompt ranks the history, 1 + fileChangeBoost × ln(1 + its changes of the
// file). A fix is often of the change that brought the code: on the
// replayed histories the session that created a file, or changed much of
// it, is the fixed one more often than a newer one-line touch. With a
// prompt, its words tell more than the size of a change (weighing the size
// there too lowered the tuning fold's hit@1 or MRR).
func fileOrigin(fh memory.FileHistory, prompted bool) func(session string) float64 {
	return func(session string) float64 {
		w := 1.0
		if session == fh.Creator && fh.Creator != "" {
			w *= 1 + fileCreateBoost
		}
		if !prompted {
			w *= 1 + fileChangeBoost*math.Log1p(float64(fh.Changes[session]))
		}
		return w
	}
}

// readWhole reads whole the observations of hist that have only their ids
// (FileMemory.FileHistory), keeping their standing, and the summaries not
// read yet.
func (e *Engine) readWhole(ctx context.Context, hist []*fileSession) error {
	if err := e.readSummaries(ctx, hist); err != nil {
		return err
	}
	var ids []int64
	for _, h := range hist {
		if !h.whole {
			ids = append(ids, h.obs.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	got, err := e.Files.Observations(ctx, ids)
	if err != nil {
		return err
	}
	for _, h := range hist {
		if !h.whole {
			st := h.obs.Standing
			h.obs, h.whole, got = got[0], true, got[1:]
			h.obs.Standing = st
		}
	}
	return nil
}

// readSummaries reads the summaries of the sessions of hist not looked up
// yet.
func (e *Engine) readSummaries(ctx context.Context, hist []*fileSession) error {
	if e.Summaries == nil {
		return nil
	}
	var ids []string
	by := map[string]*fileSession{}
	for _, h := range hist {
		if !h.headed {
			h.headed = true
			ids = append(ids, h.obs.SessionID)
			by[h.obs.SessionID] = h
		}
	}
	if len(ids) == 0 {
		return nil
	}
	sums, err := e.Summaries.SummaryHeads(ctx, ids)
	if err != nil {
		return err
	}
	for i := range sums {
		if h := by[sums[i].SessionID]; h != nil {
			h.sum = &sums[i]
		}
	}
	return nil
}

// entryKey is the key of h's entry among the marks of what was given.
func entryKey(h *fileSession) string { return strings.TrimPrefix(historyID(h), "#") }

// historyID is the id of a file-history entry: its session's summary when
// it has one, else its observation.
func historyID(h *fileSession) string {
	if h.sum != nil {
		return "S" + fmt.Sprint(h.sum.ID)
	}
	return "#" + fmt.Sprint(h.obs.ID)
}

// registerHistory registers one session of file's history: what the
// session was asked (its summary's request) and its newest observation of
// the file; without a summary, the observation. The entry is one line of
// the file's element (collector.InGroup).
func (e *Engine) registerHistory(ctx context.Context, s Session, file string, h *fileSession, p memory.Priority) (bool, error) {
	if h.sum == nil {
		return e.registerObservation(ctx, s, SourceFiles, h.obs, collector.InGroup(file, indentRest(ObservationText(h.obs, fileEntryTokens))), p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "S%d %s", h.sum.ID, h.sum.CreatedAt.UTC().Format("2006-01-02"))
	if h.obs.Standing != nil && h.obs.Standing.Stale {
		fmt.Fprintf(&b, " (%s)", h.obs.Standing.Note())
	}
	b.WriteString(": ")
	// The request as long as it fits (a cut entry costs its note), then the
	// observation's line when that fits whole.
	head, content := b.String(), ""
	for n := maxRequestChars; n > 20; n -= 10 {
		if content = head + text.Cut(text.OneLine(h.sum.Request), n); tokens.Estimate(content) <= fileEntryTokens {
			break
		}
	}
	if full := content + "\n#" + fmt.Sprint(h.obs.ID) + " " + text.OneLine(h.obs.Title); tokens.Estimate(full) <= fileEntryTokens {
		content = full
	}
	id := "S" + fmt.Sprint(h.sum.ID)
	en := memory.PendingEntry{SessionID: s.ID, Source: SourceFiles, EntryID: id, Content: collector.InGroup(file, Trim(content, fileEntryTokens)),
		Priority: p, CreatedAt: e.now()}
	ok, err := e.Pending.RegisterPendingOnce(ctx, en, markObservation, id)
	if err != nil || !ok {
		return ok, err
	}
	_, err = e.Pending.MarkOnce(ctx, s.ID, markSession, []string{h.obs.SessionID}, e.now())
	return true, err
}

// indentRest indents the lines of an entry's text after its first, so that
// in a file's element (collector.InGroup), where each line starts with the
// id of what it gives, no line of the text can start with another id.
func indentRest(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

// promptTerms are the terms (queryTerms) of the session's latest prompt,
// what aboutPrompt scores a file's sessions by, and its number. No prompt,
// no terms, and 0.
func (e *Engine) promptTerms(ctx context.Context, s Session) ([]string, int, error) {
	if e.Prompts == nil {
		return nil, 0, nil
	}
	last, ok, err := e.Prompts.LatestPrompt(ctx, s.ID)
	if err != nil || !ok {
		return nil, 0, err
	}
	return queryTerms(last.Text), last.PromptNumber, nil
}

// aboutPrompt scores a file's sessions by the session's latest prompt, its
// terms: the summed weights (TermWeights over the sessions' words) of the
// terms each holds. No terms, no scores.
func aboutPrompt(terms []string, hist []*fileSession) []float64 {
	if len(terms) == 0 || len(hist) == 0 {
		return nil
	}
	words := make([]string, len(hist))
	for i, h := range hist {
		words[i] = h.words
	}
	weights := TermWeights(terms, words)
	score := make([]float64, len(hist))
	for i := range hist {
		for t, w := range weights {
			if strings.Contains(words[i], t) {
				score[i] += w
			}
		}
	}
	return score
}

// standing leaves out retired observations and those whose cited files are
// all gone, and marks (and ranks lower) those whose files changed; the
// files of besides (the spellings of one file, there now) are not looked
// at, and no candidate is gone for the others.
func (e *Engine) standing(ctx context.Context, cands []candidate, besides []string) ([]candidate, error) {
	out := cands[:0]
	for _, c := range cands {
		if c.obs.SupersededBy == 0 {
			out = append(out, c)
		}
	}
	if e.Citations == nil || len(out) == 0 {
		return out, nil
	}
	ids := make([]int64, len(out))
	for i, c := range out {
		ids[i] = c.obs.ID
	}
	st, err := e.Citations.CheckBesides(ctx, ids, besides)
	if err != nil {
		return nil, fmt.Errorf("checking cited files: %w", err)
	}
	kept := out[:0]
	for _, c := range out {
		if s, ok := st[c.obs.ID]; ok && s.Stale {
			if s.Gone {
				if len(besides) == 0 {
					continue
				}
				s.Gone = false // it touched a file of besides, which is there
			}
			c.obs.Standing = &s
			c.relevance *= memory.StaleWeight
		}
		kept = append(kept, c)
	}
	return kept, nil
}

// registerObservation registers an observation once per session: the mark
// is shared by every source, so no observation reaches a session twice.
func (e *Engine) registerObservation(ctx context.Context, s Session, source string, o memory.Observation, text string, p memory.Priority) (bool, error) {
	en := memory.PendingEntry{SessionID: s.ID, Source: source, EntryID: "#" + fmt.Sprint(o.ID), Content: text,
		Priority: p, CreatedAt: e.now()}
	ok, err := e.Pending.RegisterPendingOnce(ctx, en, markObservation, fmt.Sprint(o.ID))
	if err != nil || !ok {
		return ok, err
	}
	_, err = e.Pending.MarkOnce(ctx, s.ID, markSession, []string{o.SessionID}, e.now())
	return true, err
}

func (e *Engine) directories(ctx context.Context, s Session, rel string, rep *Report) error {
	// The file's directories, from the root down to its own.
	var dirs []string
	for d := filepath.ToSlash(filepath.Dir(rel)); ; d = filepath.ToSlash(filepath.Dir(d)) {
		dirs = append(dirs, d)
		if d == "." || d == "/" || d == "" {
			break
		}
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	fresh, err := e.Pending.MarkOnce(ctx, s.ID, markDirectory, dirs, e.now())
	if err != nil {
		return err
	}
	for _, d := range fresh {
		for _, f := range []struct {
			on     bool
			name   string
			source string
			prio   memory.Priority
		}{
			{e.Config.DirectoryAgents, "AGENTS.md", SourceAgents, memory.PriorityNormal},
			{e.Config.DirectoryReadme, "README.md", SourceReadme, memory.PriorityLow},
		} {
			if !f.on {
				continue
			}
			fileRel := filepath.ToSlash(filepath.Join(d, f.name))
			text, err := readContextFile(s.Root, fileRel)
			if err != nil {
				continue
			}
			if text = contextText(text, e.fileBudget()); text == "" {
				continue
			}
			en := memory.PendingEntry{SessionID: s.ID, Source: f.source, EntryID: fileRel,
				Content: fileRel + ":\n" + text, Priority: f.prio, CreatedAt: e.now()}
			if err := e.Pending.RegisterPending(ctx, en); err != nil {
				return err
			}
			rep.Registered = append(rep.Registered, f.source+":"+fileRel)
		}
	}
	return nil
}

func (e *Engine) rules(ctx context.Context, s Session, rel string, rep *Report) error {
	var apply []Rule
	var paths []string
	for _, r := range LoadRules(s.Root) {
		if r.Applies(rel) {
			apply = append(apply, r)
			paths = append(paths, r.Path)
		}
	}
	if len(apply) == 0 {
		return nil
	}
	// A rule already given is not filtered again on each tool call.
	given, err := e.Pending.Marked(ctx, s.ID, markRule, paths)
	if err != nil {
		return err
	}
	for _, r := range apply {
		if given[r.Path] {
			continue
		}
		text := contextText(r.Body, e.fileBudget())
		if text == "" {
			continue
		}
		en := memory.PendingEntry{SessionID: s.ID, Source: SourceRules, EntryID: r.Path,
			Content:  r.Path + " (applies to " + rel + "):\n" + text,
			Priority: memory.PriorityHigh, CreatedAt: e.now()}
		ok, err := e.Pending.RegisterPendingOnce(ctx, en, markRule, r.Path)
		if err != nil {
			return err
		}
		if ok {
			rep.Registered = append(rep.Registered, SourceRules+":"+r.Path)
		}
	}
	return nil
}

// maxObservationTokens bounds one observation's entry.
const maxObservationTokens = 250

func (e *Engine) promptBudget() int {
	if e.Config.PromptBudget <= 0 {
		return 800
	}
	return e.Config.PromptBudget
}

func (e *Engine) fileBudget() int {
	if e.Config.FileBudget <= 0 {
		return 600
	}
	return e.Config.FileBudget
}

func (e *Engine) minRelevance() float64 {
	if e.Config.MinRelevance <= 0 {
		return 0.35
	}
	return e.Config.MinRelevance
}

// relative returns path relative to root ('/'-separated) and whether it lies
// inside root. A relative path is taken as relative to root already.
func relative(root, path string) (string, bool) {
	if root == "" || path == "" {
		return "", false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	inside := func(p string) (string, bool) {
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", false
		}
		return filepath.ToSlash(rel), true
	}
	path = filepath.Clean(path)
	if rel, ok := inside(path); ok {
		return rel, true
	}
	// The root is resolved; the path may reach it through a symbolic link.
	if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return inside(filepath.Join(dir, filepath.Base(path)))
	}
	return "", false
}

// pathForms are the spellings of a file that observations may carry: as
// given, relative to the project root, and absolute.
func pathForms(root, path string) []string {
	out := []string{path}
	if rel, ok := relative(root, path); ok {
		out = append(out, rel, filepath.Join(root, filepath.FromSlash(rel)))
	}
	return memory.CleanList(out)
}

// ObservationText renders an observation as a pending entry: a header line
// with its id, type, date and title, then its subtitle, narrative and facts,
// cut to budget tokens.
func ObservationText(o memory.Observation, budget int) string {
	var b strings.Builder
	b.WriteString(observationHead(o))
	if o.Subtitle != "" {
		b.WriteString("\n" + o.Subtitle)
	}
	if o.Narrative != "" {
		b.WriteString("\n" + o.Narrative)
	}
	for _, f := range o.Facts {
		b.WriteString("\n- " + f)
	}
	if files := memory.CleanList(append(append([]string(nil), o.FilesModified...), o.FilesRead...)); len(files) > 0 {
		b.WriteString("\nfiles: " + strings.Join(files, ", "))
	}
	return Trim(b.String(), budget)
}

// observationHead is an observation's header line: its id, type, date,
// standing when stale, and title.
func observationHead(o memory.Observation) string {
	head := fmt.Sprintf("#%d %s %s", o.ID, o.Type, o.CreatedAt.UTC().Format("2006-01-02"))
	if o.Standing != nil && o.Standing.Stale {
		head += fmt.Sprintf(" (%s)", o.Standing.Note())
	}
	return head + ": " + o.Title
}

// Trim cuts text to at most budget tokens (tokens.Estimate) at a line or
// word boundary, and says that it did.
func Trim(text string, budget int) string {
	text = strings.TrimSpace(text)
	if tokens.Estimate(text) <= budget {
		return text
	}
	const note = "\n[… cut to fit; fetch the rest for more]"
	limit := budget - tokens.Estimate(note)
	if limit <= 0 {
		return ""
	}
	// Binary search the longest prefix that fits, then back up to a boundary.
	lo, hi := 0, len(text)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if tokens.Estimate(text[:mid]) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	cut := text[:lo]
	if i := strings.LastIndexAny(cut, "\n "); i > len(cut)/2 {
		cut = cut[:i]
	}
	for len(cut) > 0 && !utf8ValidEnd(cut) {
		cut = cut[:len(cut)-1]
	}
	return strings.TrimSpace(cut) + note
}

func utf8ValidEnd(s string) bool { return utf8.ValidString(s) }
