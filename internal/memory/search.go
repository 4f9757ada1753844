package memory

import (
	"slices"
	"strings"
	"time"
)

// What a search is asked and what it finds, in the terms both the ranking
// (internal/search) and the store speak; search names them too.

// Kind is what a hit is: an observation, a session summary or a prompt
// (KindObservation, KindSummary, KindPrompt).
type Kind string

// Query is one search: free text plus filters. The zero value of a filter
// means "any". Text may be anything a person or agent types; it is never
// handed to FTS5 as is.
type Query struct {
	Text        string
	Project     string // required unless AllProjects or SessionID is set
	AllProjects bool
	Types       []Type // observation types; other kinds ignore it
	SessionID   string
	File        string // observations that read or modified this path (or a path ending in it)
	Since       time.Time
	Until       time.Time
	Limit       int    // default DefaultLimit
	Offset      int    // hits to skip, for paging
	Kinds       []Kind // empty means every kind
}

// DefaultLimit is the number of hits when Query.Limit is 0.
const DefaultLimit = 20

// MaxLimit caps Query.Limit + Query.Offset.
const MaxLimit = 1000

// Wants reports whether the query asks for hits of kind k.
func (q Query) Wants(k Kind) bool {
	return len(q.Kinds) == 0 || slices.Contains(q.Kinds, k)
}

// Candidate is a row found by full-text search before the final ranking.
type Candidate struct {
	Kind    Kind
	ID      int64
	Session string
	Date    time.Time
	// BM25 is FTS5's bm25() for the query (lower is better, as SQLite gives it).
	BM25 float64
	// Neighbor is the best text score (bm25, lower is better) of a top row
	// next to this one in its session.
	Neighbor float64
	// DateFit is DateScore of the row for the query's dates.
	DateFit float64
}

// Hit is one search result. Exactly one of Observation, Summary and Prompt
// is set, as Kind says.
type Hit struct {
	Kind      Kind      `json:"kind"`
	ID        int64     `json:"id"`
	Ref       string    `json:"ref"` // how to fetch it with mem get: #123, S12, or P7 for a prompt
	Type      Type      `json:"type,omitempty"`
	Title     string    `json:"title"`
	Snippet   string    `json:"snippet"`
	Date      time.Time `json:"date"`
	Score     float64   `json:"score"`
	SessionID string    `json:"session_id"`
	Project   string    `json:"project"`
	// Anchor marks the entry a timeline was asked around.
	Anchor bool `json:"anchor,omitempty"`
	// Note says why an observation may no longer hold: "retired: corrected
	// by #12", "stale: a.go changed", "gone: a.go gone" (search.Mark).
	Note string `json:"note,omitempty"`
	// Flag is the instruction check's rule for a record it holds back from
	// the agent (internal/guard), shown as a mark.
	Flag string `json:"flag,omitempty"`

	Observation *Observation `json:"observation,omitempty"`
	Summary     *Summary     `json:"summary,omitempty"`
	Prompt      *Prompt      `json:"prompt,omitempty"`
}

// TimelineQuery asks for what happened around an observation (Around), or
// in a whole session (SessionID): the session's prompts and observations
// in order.
type TimelineQuery struct {
	Around    int64
	SessionID string
	// Before and After bound the entries around the anchor; with SessionID
	// alone, After bounds the entries from the session's start (0: all, up
	// to MaxLimit).
	Before, After int
}

// SearchText is an observation's searchable text: its title and Body.
func (o *Observation) SearchText() string {
	return joinText(append([]string{o.Title}, o.bodyParts()...))
}

// Body is the text of an observation below its title.
func (o *Observation) Body() string { return joinText(o.bodyParts()) }

func (o *Observation) bodyParts() []string {
	parts := []string{o.Subtitle, o.Narrative}
	parts = append(parts, o.Facts...)
	parts = append(parts, o.Concepts...)
	parts = append(parts, o.FilesModified...)
	parts = append(parts, o.FilesRead...)
	return parts
}

// SearchText is a summary's searchable text: its sections and text.
func (s *Summary) SearchText() string {
	return joinText([]string{s.Request, s.Investigated, s.Learned, s.Completed, s.NextSteps, s.Decisions, s.Text})
}

func joinText(parts []string) string {
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, " · ")
}
