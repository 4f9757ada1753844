package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// A session id names one session on one machine, but two machines can give
// the same id to sessions of different projects (an id a user chose, such
// as mem observe --session notes). In a team's cluster a session is
// therefore named by its id and its project: <id>@<first 8 hex digits of
// the project key's SHA-256>, under its key and inside every record that
// names it. An id that would pass MaxSessionIDLen that way keeps its plain
// form, as every id did before.

// teamSuffix is what TeamSessionID appends for project.
func teamSuffix(project string) string {
	sum := sha256.Sum256([]byte(project))
	return "@" + hex.EncodeToString(sum[:4])
}

// TeamSessionID is the cluster's name of session id of project: id itself
// when it is already one.
func TeamSessionID(id, project string) string {
	sfx := teamSuffix(project)
	if id == "" || strings.HasSuffix(id, sfx) || len(id)+len(sfx) > MaxSessionIDLen {
		return id
	}
	return id + sfx
}

// PlainSessionID is the id a cluster name of project's session was made
// from (the name itself when it has no suffix, as in older clusters).
func PlainSessionID(teamID, project string) string {
	return strings.TrimSuffix(teamID, teamSuffix(project))
}

// TeamKey is the cluster key of a local sync key of project.
func TeamKey(key, project string) string {
	for _, p := range []string{KeySession, KeySummary} {
		if id, ok := strings.CutPrefix(key, p); ok {
			return p + TeamSessionID(id, project)
		}
	}
	return key
}

// PlainKey is a cluster key with its session's plain id, the key an older
// mem used.
func PlainKey(key, project string) string {
	for _, p := range []string{KeySession, KeySummary} {
		if name, ok := strings.CutPrefix(key, p); ok {
			return p + PlainSessionID(name, project)
		}
	}
	return key
}

// WithSessionIDs returns a copy of r whose session ids (its own, its
// parent's, the one it belongs to) are mapped by f; r is left as it is.
func (r Record) WithSessionIDs(f func(string) string) Record {
	switch {
	case r.Session != nil:
		s := *r.Session
		s.ID = f(s.ID)
		if s.ParentID != "" {
			s.ParentID = f(s.ParentID)
		}
		r.Session = &s
	case r.Observation != nil:
		o := *r.Observation
		o.SessionID = f(o.SessionID)
		r.Observation = &o
	case r.Summary != nil:
		s := *r.Summary
		s.SessionID = f(s.SessionID)
		r.Summary = &s
	case r.Prompt != nil:
		p := *r.Prompt
		p.SessionID = f(p.SessionID)
		r.Prompt = &p
	}
	return r
}
