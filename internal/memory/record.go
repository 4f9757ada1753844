package memory

import "fmt"

// Record kinds of the interchange format.
const (
	KindSession     = "session"
	KindObservation = "observation"
	KindSummary     = "summary"
	KindPrompt      = "prompt"
)

// Record is one line of the interchange format: exactly one of the pointers
// is set, as Kind says. Line is its line number in the file it came from.
type Record struct {
	Line        int
	Kind        string
	Session     *Session
	Observation *Observation
	Summary     *Summary
	Prompt      *Prompt
}

// Team sync keys: a synced record travels under its kind's prefix and an
// id, session:<id>, observation:<uuid>, summary:<session id> (one current
// summary per session). Prompts never leave the machine and have no key.
const (
	KeySession     = "session:"
	KeyObservation = "observation:"
	KeySummary     = "summary:"
)

// Key is the record's sync key; empty for a prompt or an unknown kind.
func (r Record) Key() string {
	switch {
	case r.Kind == KindSession && r.Session != nil:
		return KeySession + r.Session.ID
	case r.Kind == KindObservation && r.Observation != nil:
		return KeyObservation + r.Observation.UUID
	case r.Kind == KindSummary && r.Summary != nil:
		return KeySummary + r.Summary.SessionID
	}
	return ""
}

// Project is the project the record is filed under.
func (r Record) Project() string {
	switch {
	case r.Kind == KindSession && r.Session != nil:
		return r.Session.Project
	case r.Kind == KindObservation && r.Observation != nil:
		return r.Observation.Project
	case r.Kind == KindSummary && r.Summary != nil:
		return r.Summary.Project
	case r.Kind == KindPrompt && r.Prompt != nil:
		return r.Prompt.Project
	}
	return ""
}

// SessionID is the id of the session the record belongs to: a session's
// own id.
func (r Record) SessionID() string {
	switch {
	case r.Kind == KindSession && r.Session != nil:
		return r.Session.ID
	case r.Kind == KindObservation && r.Observation != nil:
		return r.Observation.SessionID
	case r.Kind == KindSummary && r.Summary != nil:
		return r.Summary.SessionID
	case r.Kind == KindPrompt && r.Prompt != nil:
		return r.Prompt.SessionID
	}
	return ""
}

// LineError says which line of an interchange file was refused and why.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }
