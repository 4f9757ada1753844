package search

import (
	"time"

	"github.com/memhq/mem/internal/memory"
)

// Kind is what a hit is: an observation, a session summary or a prompt.
type Kind string

// The kinds of records search returns.
const (
	KindObservation Kind = memory.KindObservation
	KindSummary     Kind = memory.KindSummary
	KindPrompt      Kind = memory.KindPrompt
)

// Kinds lists every kind, in the order hits of equal score are shown.
func Kinds() []Kind { return []Kind{KindObservation, KindSummary, KindPrompt} }

// ParseKind reads a kind as users type it (observation, summary, prompt and
// their plurals).
func ParseKind(s string) (Kind, error) {
	switch s {
	case "observation", "observations", "obs":
		return KindObservation, nil
	case "summary", "summaries":
		return KindSummary, nil
	case "prompt", "prompts":
		return KindPrompt, nil
	}
	return "", memory.Invalid("kind", "one of observation, summary, prompt", s)
}

// Query is one search: free text plus filters. The zero value of a filter
// means "any". Text may be anything a person or agent types; it is never
// handed to FTS5 as is.
type Query struct {
	Text        string
	Project     string // required unless AllProjects or SessionID is set
	AllProjects bool
	Types       []memory.Type // observation types; other kinds ignore it
	SessionID   string
	File        string // observations that read or modified this path (or a path ending in it)
	Since       time.Time
	Until       time.Time
	Limit       int    // default DefaultLimit
	Offset      int    // hits to skip, for paging
	Kinds       []Kind // empty means every kind
	// Ranking overrides DefaultRanking; nil for the default. The eval uses
	// it to compare strategies through the same code path.
	Ranking *Ranking
}

// DefaultLimit is the number of hits when Query.Limit is 0.
const DefaultLimit = 20

// MaxLimit caps Query.Limit + Query.Offset.
const MaxLimit = 1000

// Wants reports whether the query asks for hits of kind k.
func (q Query) Wants(k Kind) bool {
	if len(q.Kinds) == 0 {
		return true
	}
	for _, x := range q.Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// Hit is one search result. Exactly one of Observation, Summary and Prompt
// is set, as Kind says.
type Hit struct {
	Kind      Kind        `json:"kind"`
	ID        int64       `json:"id"`
	Ref       string      `json:"ref"` // how to fetch it with mem get: #123, S12, or P7 for a prompt
	Type      memory.Type `json:"type,omitempty"`
	Title     string      `json:"title"`
	Snippet   string      `json:"snippet"`
	Date      time.Time   `json:"date"`
	Score     float64     `json:"score"`
	SessionID string      `json:"session_id"`
	Project   string      `json:"project"`
	// Anchor marks the entry a timeline was asked around.
	Anchor bool `json:"anchor,omitempty"`
	// Note says why an observation may no longer hold: "retired: corrected
	// by #12", "stale: a.go changed", "gone: a.go gone" (Mark).
	Note string `json:"note,omitempty"`

	Observation *memory.Observation `json:"observation,omitempty"`
	Summary     *memory.Summary     `json:"summary,omitempty"`
	Prompt      *memory.Prompt      `json:"prompt,omitempty"`
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
