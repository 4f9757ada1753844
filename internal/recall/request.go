// Package recall builds the memory block an agent is given at session start
// and after compaction: recent session summaries and a relevance-ranked
// index of observations, under a token budget, rendered as XML, compact
// text or a terminal view. It reads memory through Source and never prints.
package recall

import (
	"context"
	"strings"
	"time"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/memory"
)

// Source is what recall reads. *store.DB satisfies it. A session that does
// not exist is reported by Session as an error wrapping memory.ErrNotFound.
type Source interface {
	Session(ctx context.Context, id string) (memory.Session, error)
	// RecentSummaries: newest first, without excludeSession's summary.
	RecentSummaries(ctx context.Context, project, excludeSession string, limit int) ([]memory.Summary, error)
	// RecentBriefs: newest first; with types, only those types; with
	// older, only those after it in that order (older created, or as old
	// with a lower id). Narrative and facts may be left empty (the index
	// shows neither).
	RecentBriefs(ctx context.Context, project string, types []memory.Type, limit int, older *memory.Observation) ([]memory.Observation, error)
	// SessionObservations: the session's observations, newest first.
	SessionObservations(ctx context.Context, sessionID string, limit int) ([]memory.Observation, error)
	// Prompts: the session's prompts in order.
	Prompts(ctx context.Context, sessionID string) ([]memory.Prompt, error)
	// CountObservationsUpTo counts a project's observations, or returns
	// limit when there are at least that many.
	CountObservationsUpTo(ctx context.Context, project string, limit int) (int, error)
	// CountSummariesUpTo counts a project's summaries but excludeSession's,
	// or returns limit when there are at least that many.
	CountSummariesUpTo(ctx context.Context, project, excludeSession string, limit int) (int, error)
}

// RetiredSource is what a Source may also do: list the observations of the
// given sessions that a correction retired (SupersededBy set), so that a
// summary quoting one is marked. *store.DB satisfies it.
type RetiredSource interface {
	RetiredObservations(ctx context.Context, sessionIDs []string) ([]memory.Observation, error)
}

// Mode says what the block is for.
type Mode string

// Modes.
const (
	// ModeStart is the block for the system prompt at session start.
	ModeStart Mode = "start"
	// ModeCompact is the block for the compaction prompt: the current
	// session's own observations first, in half the budget.
	ModeCompact Mode = "compact"
)

// Format is how the block is rendered.
type Format string

// Formats.
const (
	FormatXML    Format = "xml"    // for agents: <memory_context>
	FormatText   Format = "text"   // compact plain text for agents
	FormatPretty Format = "pretty" // for a person in a terminal
)

// Compress says what happens when an item does not fit the budget.
type Compress string

// Compression strategies.
const (
	// Conservative stops a section at the first item that does not fit.
	Conservative Compress = "conservative"
	// Aggressive skips an item that does not fit and tries the next ones.
	Aggressive Compress = "aggressive"
)

// ParseMode checks a --mode value; empty means start.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeStart:
		return ModeStart, nil
	case ModeCompact:
		return ModeCompact, nil
	}
	return "", memory.Invalid("--mode", "start or compact", s)
}

// ParseFormat checks a --format value; empty means xml.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "", FormatXML:
		return FormatXML, nil
	case FormatText, FormatPretty:
		return Format(s), nil
	}
	return "", memory.Invalid("--format", "xml, text or pretty", s)
}

// ParseCompress checks a --compress value; empty means conservative.
func ParseCompress(s string) (Compress, error) {
	switch Compress(s) {
	case "", Conservative:
		return Conservative, nil
	case Aggressive:
		return Aggressive, nil
	}
	return "", memory.Invalid("--compress", "conservative or aggressive", s)
}

// Request says which block to build. Zero values take defaults: mode start,
// format xml, conservative, the budget and character cap of Settings.
type Request struct {
	Project   string
	SessionID string // the current session; may be empty or unknown
	Mode      Mode
	Format    Format
	Compress  Compress
	// Prompt gives the keywords of relevance; when empty, the current
	// session's prompts and touched files do.
	Prompt string
	// Budget is the token budget of the whole block (0: Settings).
	Budget int
	// MaxChars caps the block's length in bytes (0: Settings; <0: no cap).
	MaxChars int
	// AgentType (build, plan, ...) favours observations made by the same
	// kind of agent; empty takes the current session's.
	AgentType string
	// Now is the time recency is measured from. Zero (the default) measures
	// it from the newest observation of the project, so the block depends
	// on the data only and stays byte-identical between calls.
	Now time.Time
	// Color and Boxes style the pretty format (set them on a terminal).
	Color bool
	Boxes bool
	// Citations, when set, checks the files candidates cite against the
	// work tree: gone ones are left out, changed ones marked stale and
	// ranked lower.
	Citations Checker
}

// Checker tells how the files observations cite stand against the work
// tree now (*cite.Checker).
type Checker interface {
	Check(ctx context.Context, ids []int64) (map[int64]memory.Standing, error)
}

// Weights are the weights of the relevance factors.
type Weights config.Weights

// Settings are the configurable parts of recall.
type Settings struct {
	Budget        int           // tokens of a start block
	CompactBudget int           // tokens of a compact block
	MaxChars      int           // bytes of any block
	HalfLife      time.Duration // age at which recency counts half
	Weights       Weights
}

// DefaultSettings are recall's part of config.Defaults.
func DefaultSettings() Settings { return SettingsFrom(config.Defaults(config.Dirs{})) }

// SettingsFrom takes inject.budget, inject.compact_budget,
// inject.max_chars, recall.half_life and recall.weight.* from the settings.
func SettingsFrom(s config.Settings) Settings {
	return Settings{Budget: s.Inject.Budget, CompactBudget: s.Inject.CompactBudget, MaxChars: s.Inject.MaxChars,
		HalfLife: s.Recall.HalfLife, Weights: Weights(s.Recall.Weight)}
}

// normalize fills a request's defaults from the settings.
func (r Request) normalize(s Settings) Request {
	r.Project = strings.TrimSpace(r.Project)
	if r.Mode == "" {
		r.Mode = ModeStart
	}
	if r.Format == "" {
		r.Format = FormatXML
	}
	if r.Compress == "" {
		r.Compress = Conservative
	}
	if r.Budget <= 0 {
		r.Budget = s.Budget
		if r.Mode == ModeCompact {
			r.Budget = s.CompactBudget
		}
	}
	if r.MaxChars == 0 {
		r.MaxChars = s.MaxChars
	}
	return r
}
