package store

import (
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// Rows as stored: times are unix milliseconds (UTC), lists are JSON arrays.

func toMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func encodeList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(l)
	return string(b)
}

func decodeList(s string) []string {
	// Fast path for what encodeList writes when no item needs escaping:
	// recall decodes hundreds of these lists on every hook call.
	if s == "[]" {
		return []string{}
	}
	if len(s) >= 4 && s[:2] == `["` && s[len(s)-2:] == `"]` && !strings.ContainsRune(s, '\\') {
		items := strings.Split(s[2:len(s)-2], `","`)
		ok := true
		for _, it := range items {
			ok = ok && !strings.ContainsRune(it, '"')
		}
		if ok {
			return items
		}
	}
	out := []string{}
	_ = json.Unmarshal([]byte(s), &out)
	if out == nil {
		out = []string{}
	}
	return out
}

// toRecords turns scanned rows into their records, an empty slice for none.
func toRecords[R, T any](rows []R, record func(R) T) []T {
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = record(r)
	}
	return out
}

type sessionRow struct {
	ID             string        `db:"id"`
	Project        string        `db:"project"`
	Agent          string        `db:"agent"`
	AgentType      string        `db:"agent_type"`
	Cwd            string        `db:"cwd"`
	ParentID       string        `db:"parent_id"`
	StartedAt      int64         `db:"started_at"`
	LastActivityAt int64         `db:"last_activity_at"`
	EndedAt        sql.NullInt64 `db:"ended_at"`
	PromptCount    int           `db:"prompt_count"`
	Status         string        `db:"status"`
	FilesRead      string        `db:"files_read"`
	LastMessage    string        `db:"last_message"`
}

const sessionCols = `id, project, agent, agent_type, cwd, parent_id, started_at, last_activity_at,
	ended_at, prompt_count, status, files_read, last_message`

func (r sessionRow) session() memory.Session {
	s := memory.Session{
		ID: r.ID, Project: r.Project, Agent: r.Agent, AgentType: r.AgentType, Cwd: r.Cwd,
		ParentID: r.ParentID, StartedAt: fromMillis(r.StartedAt), LastActivityAt: fromMillis(r.LastActivityAt),
		PromptCount: r.PromptCount, Status: r.Status, FilesRead: decodeList(r.FilesRead), LastMessage: r.LastMessage,
	}
	if r.EndedAt.Valid {
		t := fromMillis(r.EndedAt.Int64)
		s.EndedAt = &t
	}
	return s
}

type observationRow struct {
	ID            int64  `db:"id"`
	UUID          string `db:"uuid"`
	SessionID     string `db:"session_id"`
	Project       string `db:"project"`
	Type          string `db:"type"`
	Title         string `db:"title"`
	Subtitle      string `db:"subtitle"`
	Narrative     string `db:"narrative"`
	Facts         string `db:"facts"`
	Concepts      string `db:"concepts"`
	FilesRead     string `db:"files_read"`
	FilesModified string `db:"files_modified"`
	AgentType     string `db:"agent_type"`
	ToolName      string `db:"tool_name"`
	PromptNumber  int    `db:"prompt_number"`
	ContentHash   string `db:"content_hash"`
	TokenCount    int    `db:"token_count"`
	CreatedAt     int64  `db:"created_at"`
	SupersededBy  *int64 `db:"superseded_by"`
	Supersedes    string `db:"supersedes_uuid"`
	Occurrences   int    `db:"occurrences"`
	provenanceRow
}

// provenanceRow is the provenance and review columns observations and
// summaries share.
type provenanceRow struct {
	Origin    string `db:"origin"`
	Agent     string `db:"origin_agent"`
	Event     string `db:"origin_event"`
	Member    string `db:"origin_member"`
	Untrusted bool   `db:"untrusted"`
	Flag      string `db:"flag"`
	Span      string `db:"flag_span"`
	Released  bool   `db:"released"`
}

// provenanceCols are provenanceRow's columns, in its order.
const provenanceCols = `origin, origin_agent, origin_event, origin_member, untrusted, flag, flag_span, released`

// provenanceUpdate sets provenanceCols from an upsert's new row.
const provenanceUpdate = `origin = excluded.origin, origin_agent = excluded.origin_agent,
	origin_event = excluded.origin_event, origin_member = excluded.origin_member, untrusted = excluded.untrusted,
	flag = excluded.flag, flag_span = excluded.flag_span, released = excluded.released`

func (r provenanceRow) provenance() (memory.Provenance, memory.Review) {
	return memory.Provenance{Origin: r.Origin, Agent: r.Agent, Event: r.Event, Member: r.Member, Untrusted: r.Untrusted},
		memory.Review{Flag: r.Flag, Span: r.Span, Released: r.Released}
}

// dests are the scan destinations of provenanceCols.
func (r *provenanceRow) dests() []any {
	return []any{&r.Origin, &r.Agent, &r.Event, &r.Member, &r.Untrusted, &r.Flag, &r.Span, &r.Released}
}

// provenanceArgs are the values of provenanceCols for an insert.
func provenanceArgs(p memory.Provenance, r memory.Review) []any {
	return []any{p.Origin, p.Agent, p.Event, p.Member, p.Untrusted, r.Flag, r.Span, r.Released}
}

const observationCols = `id, uuid, session_id, project, type, title, subtitle, narrative, facts,
	concepts, files_read, files_modified, agent_type, tool_name, prompt_number, content_hash,
	token_count, created_at, superseded_by, supersedes_uuid, occurrences, ` + provenanceCols

func (r observationRow) observation() memory.Observation {
	o := memory.Observation{
		ID: r.ID, UUID: r.UUID, SessionID: r.SessionID, Project: r.Project, Type: memory.Type(r.Type),
		Title: r.Title, Subtitle: r.Subtitle, Narrative: r.Narrative, Facts: decodeList(r.Facts),
		Concepts: decodeList(r.Concepts), FilesRead: decodeList(r.FilesRead),
		FilesModified: decodeList(r.FilesModified), AgentType: r.AgentType, ToolName: r.ToolName,
		PromptNumber: r.PromptNumber, ContentHash: r.ContentHash, TokenCount: r.TokenCount,
		CreatedAt: fromMillis(r.CreatedAt), SupersededBy: deref(r.SupersededBy),
		SupersedesUUID: r.Supersedes, Merged: r.Occurrences - 1,
	}
	o.Provenance, o.Review = r.provenance()
	return o
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

type summaryRow struct {
	ID           int64  `db:"id"`
	UUID         string `db:"uuid"`
	SessionID    string `db:"session_id"`
	Project      string `db:"project"`
	Request      string `db:"request"`
	Investigated string `db:"investigated"`
	Learned      string `db:"learned"`
	Completed    string `db:"completed"`
	NextSteps    string `db:"next_steps"`
	Decisions    string `db:"decisions"`
	Concepts     string `db:"concepts"`
	Files        string `db:"files"`
	Text         string `db:"text"`
	Generator    string `db:"generator"`
	TokenCount   int    `db:"token_count"`
	CreatedAt    int64  `db:"created_at"`
	CoversUntil  int64  `db:"covers_until"`
	provenanceRow
}

const summaryCols = `id, uuid, session_id, project, request, investigated, learned, completed,
	next_steps, decisions, concepts, files, text, generator, token_count, created_at, covers_until, ` + provenanceCols

func (r summaryRow) summary() memory.Summary {
	s := memory.Summary{
		ID: r.ID, UUID: r.UUID, SessionID: r.SessionID, Project: r.Project, Request: r.Request,
		Investigated: r.Investigated, Learned: r.Learned, Completed: r.Completed, NextSteps: r.NextSteps,
		Decisions: r.Decisions, Concepts: decodeList(r.Concepts), Files: decodeList(r.Files), Text: r.Text,
		Generator: r.Generator, TokenCount: r.TokenCount, CreatedAt: fromMillis(r.CreatedAt),
		CoversUntil: fromMillis(r.CoversUntil),
	}
	s.Provenance, s.Review = r.provenance()
	return s
}

type promptRow struct {
	ID           int64  `db:"id"`
	UUID         string `db:"uuid"`
	SessionID    string `db:"session_id"`
	Project      string `db:"project"`
	PromptNumber int    `db:"prompt_number"`
	Text         string `db:"text"`
	CreatedAt    int64  `db:"created_at"`
}

const promptCols = `id, uuid, session_id, project, prompt_number, text, created_at`

func (r promptRow) prompt() memory.Prompt {
	return memory.Prompt{
		ID: r.ID, UUID: r.UUID, SessionID: r.SessionID, Project: r.Project,
		PromptNumber: r.PromptNumber, Text: r.Text, CreatedAt: fromMillis(r.CreatedAt),
	}
}
