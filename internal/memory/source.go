package memory

import "time"

// PersonalProject is the project key of the personal tier: preferences that
// are given back in every project's start block, never shared with a team,
// never exported with a project. No project resolved from a folder or a git
// remote can have this key.
const PersonalProject = "@personal"

// Source kinds: where the entries of a source file come from, the
// provenance of the observations they become.
const (
	SourceClaude     = "claude"     // Claude Code's auto memory
	SourceCodex      = "codex"      // Codex memories
	SourceGemini     = "gemini"     // Gemini CLI's memory files
	SourceRepository = "repository" // a repository's shared memory file (mem share --git)
)

// SourceFile is a file mem reads memory from besides its database, as it
// was when last read for a project.
type SourceFile struct {
	Path    string    `json:"path" db:"path"`
	Project string    `json:"project" db:"project"`
	Kind    string    `json:"kind" db:"kind"`
	Size    int64     `json:"size" db:"size"`
	Mtime   int64     `json:"mtime" db:"mtime"` // unix nanoseconds
	Hash    string    `json:"hash" db:"hash"`   // sha256 of the content
	ReadAt  time.Time `json:"read_at" db:"-"`
}

// SourceEntry is one entry of a source file and the observation it became.
type SourceEntry struct {
	Key     string `json:"key" db:"entry"`
	UUID    string `json:"uuid" db:"uuid"`
	Hash    string `json:"hash" db:"hash"` // of the entry's text as read
	Section string `json:"section" db:"section"`
}

// Sourced is an entry of a source file with the observation it becomes.
type Sourced struct {
	Entry       SourceEntry
	Observation Observation
}

// SourceResult counts what reading a source file changed.
type SourceResult struct {
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Retired   int `json:"retired"`
	Unchanged int `json:"unchanged"`
}

// Scopes of a saved observation.
const (
	ScopeProject  = "project"  // the current project's memory (the default)
	ScopePersonal = "personal" // the personal tier
)

// ParseScope checks a scope; empty means the project.
func ParseScope(field, s string) (string, error) {
	switch s {
	case "", ScopeProject:
		return ScopeProject, nil
	case ScopePersonal:
		return ScopePersonal, nil
	}
	return "", Invalid(field, "project or personal", s)
}

// PersonalSession is the session observations saved in the personal tier by
// hand or by an agent are filed under.
func PersonalSession(at time.Time) Session {
	return Session{ID: "personal", Project: PersonalProject, AgentType: "personal", StartedAt: at}
}
