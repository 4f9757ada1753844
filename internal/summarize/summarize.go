// Package summarize writes the one summary each session keeps: extractively
// from the session's prompts, observations and last message (deterministic,
// no network), or through an external model command with the extractive
// summary as fallback. It also runs the pending-sessions job under a lease.
package summarize

import (
	"context"
	"fmt"
	"time"

	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/memory"
)

// DefaultMaxTokens bounds a summary: every field and the text together.
const DefaultMaxTokens = 400

// Input is what a summarizer reads about one session.
type Input struct {
	Session      memory.Session
	Prompts      []memory.Prompt
	Observations []memory.Observation // oldest first
}

// Summarizer turns one session into a summary. It fills the content fields;
// the caller sets the session, times and generator bookkeeping.
type Summarizer interface {
	// Name is the summary's generator: "extractive" or "llm:<name>".
	Name() string
	Summarize(ctx context.Context, in Input) (memory.Summary, error)
}

// Reader reads a session and what happened in it.
type Reader interface {
	Session(ctx context.Context, id string) (memory.Session, error)
	Prompts(ctx context.Context, sessionID string) ([]memory.Prompt, error)
	SessionTimeline(ctx context.Context, sessionID string) ([]memory.Observation, error)
}

// Source is what Session needs: the store satisfies it.
type Source interface {
	Reader
	// PutSummary stores a session's summary, replacing the previous one.
	PutSummary(ctx context.Context, s memory.Summary) (memory.Summary, error)
}

// Options tune Session.
type Options struct {
	// Summarizer writes the summary; nil means the extractive summarizer.
	// When it fails, the extractive summarizer is used for that session.
	Summarizer Summarizer
	// MaxTokens bounds the summary (DefaultMaxTokens when 0).
	MaxTokens int
	// Now stamps the summary (time.Now when nil).
	Now func() time.Time
}

func (o Options) maxTokens() int {
	if o.MaxTokens <= 0 {
		return DefaultMaxTokens
	}
	return o.MaxTokens
}

func (o Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

// Result is a stored summary and, when the configured summarizer failed,
// why the extractive one was used instead.
type Result struct {
	Summary  memory.Summary `json:"summary"`
	Fallback string         `json:"fallback,omitempty"`
	// Skipped says why nothing was written (the session recorded nothing).
	Skipped string `json:"skipped,omitempty"`
}

// NothingRecorded is Result.Skipped for a session with no prompt, no
// observation and no last message: there is nothing to summarize.
const NothingRecorded = "nothing recorded: no prompt, observation or last message"

// Empty reports whether a session recorded nothing to summarize.
func (in Input) Empty() bool {
	return len(in.Prompts) == 0 && len(in.Observations) == 0 && in.Session.LastMessage == ""
}

// Load reads the input of one session. An unknown session is an error that
// wraps memory.ErrNotFound.
func Load(ctx context.Context, r Reader, sessionID string) (Input, error) {
	s, err := r.Session(ctx, sessionID)
	if err != nil {
		return Input{}, err
	}
	prompts, err := r.Prompts(ctx, sessionID)
	if err != nil {
		return Input{}, err
	}
	obs, err := r.SessionTimeline(ctx, sessionID)
	if err != nil {
		return Input{}, err
	}
	// A flagged observation is never summarized: a summary must not carry
	// what the instruction check holds back (the model never reads it).
	kept := obs[:0]
	for _, o := range obs {
		if !o.Review.Held() {
			kept = append(kept, o)
		}
	}
	return Input{Session: s, Prompts: prompts, Observations: kept}, nil
}

// Session summarizes one session now and stores the summary, replacing the
// previous one. With no Summarizer in opts it uses the extractive
// summarizer, which reads the database three times, writes once and does no
// other I/O, so it suits the editor's SessionEnd hook. A session that
// recorded nothing is left alone (Result.Skipped). An unknown session is an
// error wrapping memory.ErrNotFound.
func Session(ctx context.Context, src Source, sessionID string, opts Options) (Result, error) {
	in, err := Load(ctx, src, sessionID)
	if err != nil {
		return Result{}, err
	}
	if in.Empty() {
		return Result{Skipped: NothingRecorded}, nil
	}
	res, err := Build(ctx, in, opts)
	if err != nil {
		return Result{}, err
	}
	stored, err := src.PutSummary(ctx, res.Summary)
	if err != nil {
		return Result{}, err
	}
	res.Summary = stored
	return res, nil
}

// Build writes the summary of in without storing it. A failing summarizer
// falls back to the extractive one; only a cancelled ctx is an error.
func Build(ctx context.Context, in Input, opts Options) (Result, error) {
	ext := Extractive{MaxTokens: opts.maxTokens()}
	var res Result
	var sum memory.Summary
	var err error
	gen := ext.Name()
	if opts.Summarizer != nil {
		gen = opts.Summarizer.Name()
		sum, err = opts.Summarizer.Summarize(ctx, in)
		if err != nil {
			if ctx.Err() != nil {
				return Result{}, fmt.Errorf("summarizing session %s: %w", in.Session.ID, ctx.Err())
			}
			res.Fallback = fmt.Sprintf("%s failed (%v); used the extractive summary", gen, err)
		}
	}
	if opts.Summarizer == nil || err != nil {
		gen = ext.Name()
		if sum, err = ext.Summarize(ctx, in); err != nil {
			return Result{}, fmt.Errorf("summarizing session %s: %w", in.Session.ID, err)
		}
	}
	sum.SessionID = in.Session.ID
	sum.Project = in.Session.Project
	sum.Generator = gen
	sum.Provenance = memory.Provenance{Origin: memory.OriginSummarizer, Agent: in.Session.Agent, Event: gen}
	if gen != ext.Name() {
		// A model reads the narratives and facts: what it writes from
		// untrusted text is untrusted too. (The extractive summary quotes
		// titles, which capture writes in its own words for such text.)
		for _, o := range in.Observations {
			sum.Untrusted = sum.Untrusted || o.Untrusted
		}
	}
	guard.MarkSummary(&sum)
	sum.CreatedAt = opts.now()
	sum.CoversUntil = coversUntil(in.Observations)
	sum.TokenCount = summaryTokens(sum)
	res.Summary = sum
	return res, nil
}

// coversUntil is the time of the newest observation.
func coversUntil(obs []memory.Observation) time.Time {
	var t time.Time
	for _, o := range obs {
		if o.CreatedAt.After(t) {
			t = o.CreatedAt
		}
	}
	return t
}
