// Package memory holds mem's domain types and the rules that apply to them,
// independent of how they are stored.
package memory

import (
	"time"
)

// Session is one editor session of an agent in a project.
type Session struct {
	ID             string     `json:"id"`
	Project        string     `json:"project"`
	Agent          string     `json:"agent"`
	AgentType      string     `json:"agent_type"`
	Cwd            string     `json:"cwd"`
	ParentID       string     `json:"parent_id,omitempty"`
	StartedAt      time.Time  `json:"started_at"`
	LastActivityAt time.Time  `json:"last_activity_at"`
	EndedAt        *time.Time `json:"ended_at,omitempty"`
	PromptCount    int        `json:"prompt_count"`
	Status         string     `json:"status"`
	FilesRead      []string   `json:"files_read"`
	LastMessage    string     `json:"last_message,omitempty"`
}

// Session statuses.
const (
	StatusActive = "active"
	StatusEnded  = "ended"
)

// Observation is one thing worth remembering from a session: a decision, a
// problem, a change, a discovery, with the files and facts it concerns.
type Observation struct {
	ID            int64     `json:"id"`
	UUID          string    `json:"uuid"`
	SessionID     string    `json:"session_id"`
	Project       string    `json:"project"`
	Type          Type      `json:"type"`
	Title         string    `json:"title"`
	Subtitle      string    `json:"subtitle"`
	Narrative     string    `json:"narrative"`
	Facts         []string  `json:"facts"`
	Concepts      []string  `json:"concepts"`
	FilesRead     []string  `json:"files_read"`
	FilesModified []string  `json:"files_modified"`
	AgentType     string    `json:"agent_type"`
	ToolName      string    `json:"tool_name"`
	PromptNumber  int       `json:"prompt_number"`
	ContentHash   string    `json:"content_hash"`
	TokenCount    int       `json:"token_count"`
	CreatedAt     time.Time `json:"created_at"`
	Provenance
	Review
	// SupersededBy is the correction that retired this record (0: current).
	SupersededBy int64 `json:"superseded_by,omitempty"`
	// Merged counts the near-duplicates consolidated into it.
	Merged int `json:"merged,omitempty"`
	// Supersedes is the record this one corrects, when it is stored.
	Supersedes int64 `json:"supersedes,omitempty"`
	// SupersedesUUID is the uuid of the record this one corrects: what
	// carries the correction to another database.
	SupersedesUUID string `json:"supersedes_uuid,omitempty"`
	// Citations are the files it cites as they were when it was made; read
	// only where asked for.
	Citations []Citation `json:"citations,omitempty"`
	// Standing is how its citations stand against the work tree now; set
	// only by a check.
	Standing *Standing `json:"standing,omitempty"`
}

// Summary is the one current summary of a session.
type Summary struct {
	ID           int64     `json:"id"`
	UUID         string    `json:"uuid"`
	SessionID    string    `json:"session_id"`
	Project      string    `json:"project"`
	Request      string    `json:"request"`
	Investigated string    `json:"investigated"`
	Learned      string    `json:"learned"`
	Completed    string    `json:"completed"`
	NextSteps    string    `json:"next_steps"`
	Decisions    string    `json:"decisions"`
	Concepts     []string  `json:"concepts"`
	Files        []string  `json:"files"`
	Text         string    `json:"text"`
	Generator    string    `json:"generator"`
	TokenCount   int       `json:"token_count"`
	CreatedAt    time.Time `json:"created_at"`
	CoversUntil  time.Time `json:"covers_until"`
	Provenance
	Review
}

// Prompt is one user prompt of a session, private parts removed.
type Prompt struct {
	ID           int64     `json:"id"`
	UUID         string    `json:"uuid"`
	SessionID    string    `json:"session_id"`
	Project      string    `json:"project"`
	PromptNumber int       `json:"prompt_number"`
	Text         string    `json:"text"`
	CreatedAt    time.Time `json:"created_at"`
}

// Priority orders pending context entries: higher comes first.
type Priority int

// Pending context priorities.
const (
	PriorityLow      Priority = 0
	PriorityNormal   Priority = 1
	PriorityHigh     Priority = 2
	PriorityCritical Priority = 3
)

// PendingEntry is context waiting to be delivered to a session at its next turn.
type PendingEntry struct {
	SessionID  string    `json:"session_id"`
	Source     string    `json:"source"`
	EntryID    string    `json:"entry_id"`
	Content    string    `json:"content"`
	Priority   Priority  `json:"priority"`
	Persistent bool      `json:"persistent"`
	CreatedAt  time.Time `json:"created_at"`
}
