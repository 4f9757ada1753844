package summarize

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// LeaseName is the lease the pending-sessions job holds while it runs.
const LeaseName = "summarize"

// DefaultLeaseTTL is how long the lease lasts without renewal; the job
// renews it as it goes, so only a crashed run lets it expire.
const DefaultLeaseTTL = 10 * time.Minute

// Pending is a session that needs a summary and why (ended, idle, stale,
// upgrade).
type Pending struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Queue is what the job needs from the store.
type Queue interface {
	// Summarize writes the summary of a session now, as Session does.
	Summarize(ctx context.Context, sessionID string, opts Options) (Result, error)
	// Pending lists the sessions to summarize, oldest activity first.
	Pending(ctx context.Context, idleBefore time.Time, upgrade bool, limit int) ([]Pending, error)
	// AcquireLease takes the named lease for holder (or renews it) when it is
	// free, expired, holder's own or held by replace; it returns who holds
	// it afterwards and until when.
	AcquireLease(ctx context.Context, name, holder, replace string, now time.Time, ttl time.Duration) (string, time.Time, error)
	ReleaseLease(ctx context.Context, name, holder string) error
}

// Job summarizes every pending session, one run at a time.
type Job struct {
	Queue   Queue
	Options Options
	// Idle is how long an open session must be idle to be summarized.
	Idle   time.Duration
	Limit  int  // at most this many sessions (0: all)
	DryRun bool // list the pending sessions, change nothing
	// Holder names this run in the lease (LocalHolder by default).
	Holder   string
	LeaseTTL time.Duration // DefaultLeaseTTL when 0
	// Alive reports whether a lease holder is still running; a dead holder's
	// lease is taken over. Nil: HolderAlive.
	Alive func(holder string) bool
	// Progress is told about each session as it is done (may be nil).
	Progress func(Event)
}

// Event reports one session of a run.
type Event struct {
	Done, Total int
	Session     SessionReport
}

// SessionReport says what happened to one session.
type SessionReport struct {
	ID        string `json:"id"`
	Reason    string `json:"reason"`
	Generator string `json:"generator,omitempty"`
	Tokens    int    `json:"tokens,omitempty"`
	Fallback  string `json:"fallback,omitempty"`
	Skipped   string `json:"skipped,omitempty"` // why nothing was written
}

// Report is the outcome of a run.
type Report struct {
	Pending    int             `json:"pending"`
	Summarized int             `json:"summarized"`
	Fallbacks  int             `json:"fallbacks"`
	Skipped    int             `json:"skipped"`
	DryRun     bool            `json:"dry_run"`
	Sessions   []SessionReport `json:"sessions"`
	// LeaseHolder and LeaseUntil are set when another run holds the lease;
	// then nothing was done.
	LeaseHolder string    `json:"lease_holder,omitempty"`
	LeaseUntil  time.Time `json:"lease_until,omitzero"`
}

// Run does the job. When another live run holds the lease it returns at
// once with LeaseHolder set and no error. Each session's summary commits on
// its own, so a run that stops half-way keeps what it finished; the first
// store error stops the run.
func (j Job) Run(ctx context.Context) (Report, error) {
	rep := Report{DryRun: j.DryRun, Sessions: []SessionReport{}}
	now := j.Options.now()
	holder := j.Holder
	if holder == "" {
		holder = LocalHolder()
	}
	ttl := j.LeaseTTL
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	if !j.DryRun {
		got, until, err := j.acquire(ctx, holder, now, ttl)
		if err != nil {
			return rep, err
		}
		if got != holder {
			rep.LeaseHolder, rep.LeaseUntil = got, until
			return rep, nil
		}
		defer func() {
			// Release even when ctx was cancelled, so the next run need not wait.
			_ = j.Queue.ReleaseLease(context.WithoutCancel(ctx), LeaseName, holder)
		}()
	}
	_, upgrade := j.Options.Summarizer.(Command)
	pending, err := j.Queue.Pending(ctx, now.Add(-j.Idle), upgrade, j.Limit)
	if err != nil {
		return rep, err
	}
	rep.Pending = len(pending)
	renewed := now
	for i, p := range pending {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		sr := SessionReport{ID: p.ID, Reason: p.Reason}
		if j.DryRun {
			rep.Sessions = append(rep.Sessions, sr)
			j.progress(i+1, len(pending), sr)
			continue
		}
		if t := j.Options.now(); t.Sub(renewed) > ttl/4 {
			if got, _, err := j.Queue.AcquireLease(ctx, LeaseName, holder, "", t, ttl); err != nil {
				return rep, err
			} else if got != holder {
				return rep, fmt.Errorf("lost the %s lease to %s", LeaseName, got)
			}
			renewed = t
		}
		res, err := j.Queue.Summarize(ctx, p.ID, j.Options)
		switch {
		case errors.Is(err, memory.ErrNotFound):
			// Deleted since it was listed.
			sr.Skipped = "session no longer exists"
			rep.Skipped++
		case err != nil:
			return rep, err
		case res.Skipped != "":
			sr.Skipped = res.Skipped
			rep.Skipped++
		default:
			sr.Generator, sr.Tokens, sr.Fallback = res.Summary.Generator, res.Summary.TokenCount, res.Fallback
			rep.Summarized++
			if res.Fallback != "" {
				rep.Fallbacks++
			}
		}
		rep.Sessions = append(rep.Sessions, sr)
		j.progress(i+1, len(pending), sr)
	}
	return rep, nil
}

// acquire takes the lease, taking it over from a holder that is not running.
func (j Job) acquire(ctx context.Context, holder string, now time.Time, ttl time.Duration) (string, time.Time, error) {
	got, until, err := j.Queue.AcquireLease(ctx, LeaseName, holder, "", now, ttl)
	if err != nil || got == holder {
		return got, until, err
	}
	alive := j.Alive
	if alive == nil {
		alive = HolderAlive
	}
	if alive(got) {
		return got, until, nil
	}
	return j.Queue.AcquireLease(ctx, LeaseName, holder, got, now, ttl)
}

func (j Job) progress(done, total int, sr SessionReport) {
	if j.Progress != nil {
		j.Progress(Event{Done: done, Total: total, Session: sr})
	}
}

// LocalHolder names this process in a lease: host name and process id.
func LocalHolder() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// HolderAlive reports whether the process a lease holder names may still
// run: false only when it names a process of this host that does not exist.
func HolderAlive(holder string) bool {
	i := strings.LastIndexByte(holder, ':')
	if i < 0 {
		return true
	}
	pid, err := strconv.Atoi(holder[i+1:])
	host, _ := os.Hostname()
	if err != nil || pid <= 0 || holder[:i] != host {
		return true
	}
	return processExists(pid)
}
