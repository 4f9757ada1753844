// Package search turns free text into safe FTS5 queries and index terms, and
// ranks the rows those queries find. It has no database of its own: Rank
// reads through a Source, which the store implements.
package search

import "github.com/memhq/mem/internal/memory"

// A search's vocabulary is the domain's (internal/memory), which the store
// speaks too.
type (
	Kind          = memory.Kind
	Query         = memory.Query
	Candidate     = memory.Candidate
	Hit           = memory.Hit
	TimelineQuery = memory.TimelineQuery
)

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

// DefaultLimit is the number of hits when Query.Limit is 0.
const DefaultLimit = memory.DefaultLimit

// MaxLimit caps Query.Limit + Query.Offset.
const MaxLimit = memory.MaxLimit
