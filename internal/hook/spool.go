package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
)

// jobVersion is the version of the spooled record; a record of another
// version is set aside, not guessed at.
const jobVersion = 1

// job is an event as it is spooled: everything applying it needs, resolved
// when it arrived, so that it is applied as it would have been then.
type job struct {
	ID      string    `json:"-"` // the file name in the spool
	V       int       `json:"v"`
	At      time.Time `json:"at"`      // arrival: the time of everything the event records
	Dir     string    `json:"dir"`     // the folder the project was resolved from
	Project string    `json:"project"` // the project key
	Root    string    `json:"root"`    // the project's work tree root
	Event   Event     `json:"event"`
	// held is the record written at arrival (nil when there is none):
	// spooling the event queues it.
	held *spool.Held
}

// spoolFor spools j, which the database could not take because of err (a
// notNow error). A busy database is routine and not reported; one that is
// read-only, full or failing writes is a problem the user must hear of, so
// it comes back as the error, with where the event went.
func (h *Handler) spoolFor(j job, err error) error {
	if errors.Is(err, store.ErrBusy) {
		return h.spool(j, "database busy")
	}
	if serr := h.spool(j, err.Error()); serr != nil {
		return serr
	}
	return fmt.Errorf("event spooled as %s, to be applied once the database takes writes again: %w", j.ID, err)
}

// spool writes j to the spool, or queues the record written at its
// arrival. Spooling is how a busy database is met, not a problem: it is not
// logged. A failed write loses the event, and says so.
func (h *Handler) spool(j job, why string) error {
	if j.held != nil {
		if err := j.held.Queue(); err != nil {
			return fmt.Errorf("event lost: %s, and spooling it failed: %w", why, err)
		}
		return nil
	}
	data, err := json.Marshal(j)
	if err == nil {
		err = h.Spool.Put(j.ID, data)
	}
	if err != nil {
		return fmt.Errorf("event lost: %s, and spooling it failed: %w", why, err)
	}
	return nil
}

// hold writes j to the spool as it arrives, held by this process
// (spool.Held): it stays out of the queue while the process applies it, and
// joins it if the process ends first. A failed write is logged, and the
// event handled as before: spooled only if the database cannot take it.
func (h *Handler) hold(j job) *spool.Held {
	data, err := json.Marshal(j)
	if err != nil {
		h.logf("event %s not written at arrival: %v", j.ID, err)
		return nil
	}
	held, err := h.Spool.Hold(j.ID, data)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	if err != nil {
		h.logf("event %s not written at arrival: %v", j.ID, err)
		return nil
	}
	return held
}

// ApplySpooled applies one spooled event in tx, as it would have been
// applied when it arrived (spool.Applier).
func (h *Handler) ApplySpooled(ctx context.Context, tx *store.DB, id string, data []byte) error {
	var j job
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("%w: %w", spool.ErrUnreadable, err)
	}
	if j.V != jobVersion {
		return fmt.Errorf("%w: version %d, want %d", spool.ErrUnreadable, j.V, jobVersion)
	}
	j.ID = id
	return h.turn(tx, j, true, false).record(ctx)
}

// LogSpooled logs a problem of the spool (spool.Applier).
func (h *Handler) LogSpooled(format string, args ...any) { h.logf(format, args...) }

// SpooledOf returns what selects the spooled events of a session (its id
// as stored) or, when session is empty, of a project: what forgetting them
// overwrites and deletes in the spool (spool.Dir.Forget).
func SpooledOf(session, project string) func(data []byte) bool {
	return func(data []byte) bool {
		var j job
		if json.Unmarshal(data, &j) != nil {
			return false
		}
		if session != "" {
			return j.Event.SessionID == session
		}
		return j.Project == project
	}
}

// PendingEvent is a hook event waiting in the spool: captured, on disk,
// not applied to the database yet (the next hook or command that writes
// applies it).
type PendingEvent struct {
	ID      string    `json:"id"`
	At      time.Time `json:"at"`
	Project string    `json:"project"`
	Agent   string    `json:"agent"`
	Event   string    `json:"event"` // the agent's own event name
	Tool    string    `json:"tool,omitempty"`
	Cwd     string    `json:"cwd,omitempty"`
}

// Pending reads the events of a session (its id as stored) waiting in the
// spool, oldest first, without applying or moving them: what a command
// that only reads shows of what the hooks captured while the database was
// busy. A record that cannot be read is left out.
func Pending(sp spool.Dir, session string) ([]PendingEvent, error) {
	entries, err := sp.Waiting()
	if err != nil {
		return nil, err
	}
	var out []PendingEvent
	for _, e := range entries {
		data, err := sp.Read(e)
		if err != nil {
			continue // applied meanwhile, or set aside by the next drain
		}
		var j job
		if json.Unmarshal(data, &j) != nil || j.V != jobVersion || j.Event.SessionID != session {
			continue
		}
		cwd := j.Event.Cwd
		if cwd == "" {
			cwd = j.Dir
		}
		out = append(out, PendingEvent{ID: e.ID, At: j.At, Project: j.Project, Agent: j.Event.Agent, Event: j.Event.Name,
			Tool: j.Event.Call.Tool, Cwd: privacy.Filter(cwd)})
	}
	return out, nil
}
