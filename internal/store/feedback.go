package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// Writable reports whether db runs its queries in a write transaction
// (Write's or Apply's), where a use case may record as it reads.
func (db *DB) Writable() bool { return db.outer != nil && !db.readOnly }

// AddInjections records the entries a channel put in front of a session's
// model.
func (db *DB) AddInjections(ctx context.Context, list []memory.Injection) error {
	if len(list) == 0 {
		return nil
	}
	// One statement per batch: a start block gives a few dozen entries.
	const batch = 100
	err := db.tx(ctx, func(t *sqlx.Tx) error {
		for len(list) > 0 {
			n := min(batch, len(list))
			q := `INSERT INTO injections (project, session_id, channel, ref, tokens, at) VALUES ` +
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?), ", n), ", ")
			args := make([]any, 0, 6*n)
			for _, in := range list[:n] {
				args = append(args, in.Project, in.SessionID, in.Channel, in.Ref, in.Tokens, toMillis(in.At))
			}
			if _, err := t.ExecContext(ctx, q, args...); err != nil {
				return err
			}
			list = list[n:]
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("recording what was injected: %w", err)
	}
	return nil
}

// UseEntries records that the agent fetched entries of a project at at (a
// get, or a search or timeline that returned them). Only entries mem once
// injected in the project are kept: the others have no injection to credit.
func (db *DB) UseEntries(ctx context.Context, project string, refs []string, at time.Time) error {
	if len(refs) == 0 {
		return nil
	}
	err := db.tx(ctx, func(t *sqlx.Tx) error {
		for _, ref := range refs {
			if _, err := t.ExecContext(ctx, `INSERT INTO entry_feedback (project, ref, used_at)
				SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM injections WHERE project = ?1 AND ref = ?2)
				ON CONFLICT (project, ref) DO UPDATE SET used_at = max(used_at, excluded.used_at)`,
				project, ref, toMillis(at)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("recording what the agent fetched: %w", err)
	}
	return nil
}

// MarkEntry records a person's verdict on an entry of a project (useful,
// wrong, or none to clear it).
func (db *DB) MarkEntry(ctx context.Context, project, ref, verdict string, at time.Time) error {
	if err := memory.CheckVerdict(verdict); err != nil {
		return err
	}
	r, ok := memory.ParseEntryRef(ref)
	if !ok {
		return memory.Invalid("ref", "an observation (#12) or a summary (S3)", ref)
	}
	_, err := db.change(ctx, `INSERT INTO entry_feedback (project, ref, verdict, marked_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (project, ref) DO UPDATE SET verdict = excluded.verdict, marked_at = excluded.marked_at`,
		project, r, verdict, toMillis(at))
	if err != nil {
		return fmt.Errorf("marking %s: %w", r, err)
	}
	return nil
}

// Verdicts returns a person's verdicts on a project's entries, by ref.
func (db *DB) Verdicts(ctx context.Context, project string, refs []string) (map[string]string, error) {
	out := map[string]string{}
	if len(refs) == 0 {
		return out, nil
	}
	q, args, err := sqlx.In(`SELECT ref, verdict FROM entry_feedback WHERE project = ? AND verdict <> '' AND ref IN (?)`, project, refs)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		Ref     string `db:"ref"`
		Verdict string `db:"verdict"`
	}
	err = db.read(ctx, func(t *sqlx.Tx) error { return t.SelectContext(ctx, &rows, q, args...) })
	if err != nil {
		return nil, fmt.Errorf("reading verdicts: %w", err)
	}
	for _, r := range rows {
		out[r.Ref] = r.Verdict
	}
	return out, nil
}

// Feedback counts what became of a project's injections (every project's
// when project is empty) since since, per channel.
func (db *DB) Feedback(ctx context.Context, project string, since time.Time) (memory.Feedback, error) {
	per, err := db.feedback(ctx, project, since, false)
	if err != nil {
		return memory.Feedback{}, err
	}
	if len(per) == 0 {
		return memory.Feedback{Project: project, Since: since, Channels: []memory.FeedbackCounts{}}, nil
	}
	per[0].Project = project
	return per[0], nil
}

// FeedbackPerProject is Feedback for each project that was given memory
// since since, by project key.
func (db *DB) FeedbackPerProject(ctx context.Context, since time.Time) ([]memory.Feedback, error) {
	return db.feedback(ctx, "", since, true)
}

// feedback counts injections per channel, of one project or every one,
// and with byProject one Feedback per project (else one in all).
func (db *DB) feedback(ctx context.Context, project string, since time.Time, byProject bool) ([]memory.Feedback, error) {
	const used = `(f.used_at >= i.at OR f.verdict = 'useful')`
	// In all, a channel's rows of every project come together.
	order := "i.channel, i.project"
	if byProject {
		order = "i.project, i.channel"
	}
	q := `SELECT i.project AS project, i.channel AS channel, count(*) AS injected,
		coalesce(sum(CASE WHEN ` + used + ` THEN 1 ELSE 0 END), 0) AS used,
		coalesce(sum(CASE WHEN ` + used + ` AND f.verdict <> 'wrong' THEN 1 ELSE 0 END), 0) AS helpful,
		coalesce(sum(CASE WHEN f.verdict = 'wrong' THEN 1 ELSE 0 END), 0) AS wrong,
		coalesce(sum(i.tokens), 0) AS tokens,
		coalesce(sum(CASE WHEN ` + used + ` THEN 0 ELSE i.tokens END), 0) AS unused_tokens
		FROM injections i LEFT JOIN entry_feedback f ON f.project = i.project AND f.ref = i.ref
		WHERE (?1 = '' OR i.project = ?1) AND i.at >= ?2
		GROUP BY i.project, i.channel ORDER BY ` + order
	var rows []struct {
		Project string `db:"project"`
		memory.FeedbackCounts
	}
	err := db.read(ctx, func(t *sqlx.Tx) error { return t.SelectContext(ctx, &rows, q, project, toMillis(since)) })
	if err != nil {
		return nil, fmt.Errorf("counting what injections were worth: %w", err)
	}
	var out []memory.Feedback
	for _, r := range rows {
		key := ""
		if byProject {
			key = r.Project
		}
		if len(out) == 0 || out[len(out)-1].Project != key {
			out = append(out, memory.Feedback{Project: key, Since: since, Channels: []memory.FeedbackCounts{}})
		}
		fb := &out[len(out)-1]
		if n := len(fb.Channels); n > 0 && fb.Channels[n-1].Channel == r.Channel {
			fb.Channels[n-1].Add(r.FeedbackCounts) // the same channel of another project
		} else {
			fb.Channels = append(fb.Channels, r.FeedbackCounts)
		}
		fb.Total.Add(r.FeedbackCounts)
	}
	return out, nil
}
