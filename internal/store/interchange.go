package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// ImportResult counts what an import added and what it already had.
type ImportResult struct {
	Added   map[string]int `json:"added"`
	Skipped map[string]int `json:"skipped"`
	// Projects counts the records added to each project.
	Projects map[string]int `json:"projects"`
}

// Import writes records in one transaction: all of them or, when one is
// refused, none. Sessions are matched by id, everything else by uuid, so
// importing the same records again adds nothing.
func (db *DB) Import(ctx context.Context, recs []memory.Record) (ImportResult, error) {
	done := false
	return db.ImportStream(ctx, func() ([]memory.Record, error) {
		if done {
			return nil, io.EOF
		}
		done = true
		return recs, nil
	})
}

// ImportStream is Import over records that next returns in batches, io.EOF
// after the last: one transaction, all or nothing, holding only a few
// batches at a time. An error of next ends the import (nothing written) and
// is returned wrapped.
func (db *DB) ImportStream(ctx context.Context, next func() ([]memory.Record, error)) (ImportResult, error) {
	// Read ahead until the stream ends or holds enough observations to be
	// indexed in one pass at the end.
	var head []memory.Record
	nobs, eof := 0, false
	for !eof && nobs < bulkObservations {
		batch, err := next()
		if err == io.EOF {
			eof = true
			break
		}
		if err != nil {
			return ImportResult{}, fmt.Errorf("importing: %w", err)
		}
		head = append(head, batch...)
		for _, r := range batch {
			if r.Kind == memory.KindObservation {
				nobs++
			}
		}
	}
	big := db.bulk(nobs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := prepared(ctx, head, eof, next, big)
	var res ImportResult
	began := false
	err := db.bulkTx(ctx, big, func(tx *sqlx.Tx) error {
		// The records are read once: a transaction retried after it
		// consumed some would import only the rest.
		if began {
			return errors.New("the database was busy after the import began; nothing was written, run it again")
		}
		began = true
		var err error
		res, err = db.importIn(ctx, tx, batches, big)
		return err
	})
	if err != nil {
		return ImportResult{}, fmt.Errorf("importing: %w", err)
	}
	if db.outer == nil && len(res.Added) > 0 {
		// The import left the full-text indexes in many segments: merged
		// now, where a person waits for the import, not by the next hook
		// that writes (FTS5 merges a level in one go once it holds
		// crisismerge segments). The import is done either way; the
		// nightly job merges again.
		_, _ = db.OptimizeFTS(ctx)
	}
	return res, nil
}

// oneBatch is a stream of the one batch recs, whose observations' derived
// fields are pre when the import indexes in one pass.
func oneBatch(recs []memory.Record, pre []derived) <-chan preparedBatch {
	ch := make(chan preparedBatch, 1)
	ch <- preparedBatch{recs: recs, pre: pre}
	close(ch)
	return ch
}

// importIn is Import inside the transaction tx, of the batches until the
// channel closes; big says whether the new rows are indexed in one pass at
// the end (each batch then holds its observations' derived fields).
func (db *DB) importIn(ctx context.Context, tx *sqlx.Tx, batches <-chan preparedBatch, big bool) (ImportResult, error) {
	res := ImportResult{Added: map[string]int{}, Skipped: map[string]int{}, Projects: map[string]int{}}
	count := func(kind, project string, added bool) {
		if added {
			res.Added[kind]++
			res.Projects[project]++
		} else {
			res.Skipped[kind]++
		}
	}
	err := func() error {
		q := newStmtCache(tx)
		defer q.close()
		// In one pass, the new rows of each table with a full-text index
		// are indexed at the end instead of by its insert trigger.
		var restore []func() error
		var newIDs, newSummaries, newPrompts []int64
		// Corrections are resolved at the end, once every row is indexed:
		// resolve says whether a correction or what one may retire came in.
		type correction struct {
			id   int64
			uuid string
		}
		var corrections []correction
		var corrected, resolve bool
		if err := tx.GetContext(ctx, &corrected, `SELECT EXISTS (SELECT 1 FROM observations WHERE supersedes_uuid <> '')`); err != nil {
			return err
		}
		if big {
			for _, trigger := range []string{"observations_ai", "summaries_ai", "prompts_ai"} {
				r, err := suspendTrigger(ctx, tx, trigger)
				if err != nil {
					return err
				}
				restore = append(restore, r)
			}
		}
		projects := map[string]string{} // session id -> project
		// projectOf returns the project of a record's session. A record that
		// names another project would be filed where the file did not say,
		// so it is refused.
		projectOf := func(line int, id, claimed string) (string, error) {
			p, ok := projects[id]
			if !ok {
				s, err := getSession(ctx, tx, id)
				if err != nil {
					if !errors.Is(err, memory.ErrNotFound) {
						return "", err
					}
					return "", &memory.LineError{Line: line, Err: memory.Invalid("session_id", "the id of a session in the file or the database", id)}
				}
				p = s.Project
				projects[id] = p
			}
			if claimed != "" && claimed != p {
				return "", &memory.LineError{Line: line, Err: memory.Invalid("project", "the project of session "+id+" ("+p+")", claimed)}
			}
			return p, nil
		}
		for b := range batches {
			if b.err != nil {
				return b.err
			}
			for i, r := range b.recs {
				var added bool
				var err error
				var project string
				switch r.Kind {
				case memory.KindSession:
					added, err = importSession(ctx, q, *r.Session)
					projects[r.Session.ID] = r.Session.Project
					project = r.Session.Project
					if !added {
						if s, gerr := getSession(ctx, tx, r.Session.ID); gerr == nil {
							projects[s.ID] = s.Project
						}
					}
				case memory.KindObservation:
					o := *r.Observation
					if o.Project, err = projectOf(r.Line, o.SessionID, o.Project); err != nil {
						return err
					}
					project = o.Project
					var a Added
					if b.pre != nil {
						a, err = insertDerived(ctx, q, &o, b.pre[i])
					} else {
						a, err = insertObservation(ctx, q, &o)
					}
					added = !a.Duplicate
					if added {
						newIDs = append(newIDs, a.ID)
					} else if err == nil && o.SupersedesUUID != "" {
						// Held already, without the correction it names.
						corrections = append(corrections, correction{a.ID, o.SupersedesUUID})
					}
					resolve = resolve || added && (o.SupersedesUUID != "" || corrected)
				case memory.KindSummary:
					s := *r.Summary
					if s.Project, err = projectOf(r.Line, s.SessionID, s.Project); err != nil {
						return err
					}
					project = s.Project
					if added, err = absent(ctx, q, `summaries WHERE uuid = ? OR session_id = ?`, s.UUID, s.SessionID); added {
						var put memory.Summary
						if put, err = putSummary(ctx, tx, s, false); err == nil && big {
							newSummaries = append(newSummaries, put.ID)
						}
					}
				case memory.KindPrompt:
					p := *r.Prompt
					if p.Project, err = projectOf(r.Line, p.SessionID, p.Project); err != nil {
						return err
					}
					project = p.Project
					if added, err = absent(ctx, q, `prompts WHERE uuid = ? OR (session_id = ? AND prompt_number = ?)`,
						p.UUID, p.SessionID, p.PromptNumber); added {
						var id int64
						if id, err = insertPrompt(ctx, q, &p); err == nil && big && id > 0 {
							newPrompts = append(newPrompts, id)
						}
						if err == nil {
							_, err = q.ExecContext(ctx, `UPDATE sessions SET prompt_count = max(prompt_count, ?) WHERE id = ?`,
								p.PromptNumber, p.SessionID)
						}
					}
				default:
					err = memory.Invalid("kind", "session, observation, summary or prompt", r.Kind)
				}
				if err != nil {
					var le *memory.LineError
					if errors.As(err, &le) {
						return err
					}
					return &memory.LineError{Line: r.Line, Err: err}
				}
				count(r.Kind, project, added)
			}
		}
		if restore != nil {
			if err := db.indexObservations(ctx, tx, newIDs); err != nil {
				return err
			}
			if err := indexSummariesPrompts(ctx, tx, newSummaries, newPrompts); err != nil {
				return err
			}
			for _, r := range restore {
				if err := r(); err != nil {
					return err
				}
			}
		}
		for _, c := range corrections {
			if _, err := tx.ExecContext(ctx, `UPDATE observations SET supersedes_uuid = ? WHERE id = ? AND supersedes_uuid = ''`,
				c.uuid, c.id); err != nil {
				return err
			}
		}
		if !resolve && len(corrections) == 0 {
			return nil
		}
		return resolveSupersedes(ctx, tx)
	}()
	return res, err
}

// preparedBatch is a batch of records ready for the import's transaction:
// with derive done for its observations when the import indexes in one pass.
type preparedBatch struct {
	recs []memory.Record
	pre  []derived
	err  error
}

// prepared reads the rest of the stream after head and derives each batch
// (hashes, token counts, index terms, spread over the CPUs) a couple of
// batches ahead of the transaction, which then only talks to SQLite. It
// stops when ctx is done.
func prepared(ctx context.Context, head []memory.Record, eof bool, next func() ([]memory.Record, error), big bool) <-chan preparedBatch {
	ch := make(chan preparedBatch, 2)
	go func() {
		defer close(ch)
		send := func(recs []memory.Record, err error) bool {
			b := preparedBatch{recs: recs, err: err}
			if big && err == nil {
				b.pre = deriveAll(recs)
			}
			select {
			case ch <- b:
				return err == nil
			case <-ctx.Done():
				return false
			}
		}
		if len(head) > 0 && !send(head, nil) || eof {
			return
		}
		for {
			batch, err := next()
			if err == io.EOF || !send(batch, err) {
				return
			}
		}
	}()
	return ch
}

// absent reports whether no row matches "table WHERE ...".
func absent(ctx context.Context, tx querier, from string, args ...any) (bool, error) {
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM `+from, args...); err != nil {
		return false, err
	}
	return n == 0, nil
}

func importSession(ctx context.Context, tx querier, s memory.Session) (bool, error) {
	var ended any
	if s.EndedAt != nil {
		ended = toMillis(*s.EndedAt)
	}
	// A session that says when it ended has ended, whatever its status.
	status := s.Status
	switch {
	case s.EndedAt != nil:
		status = memory.StatusEnded
	case status == "":
		status = memory.StatusActive
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, project, agent, agent_type, cwd, parent_id, started_at,
		last_activity_at, ended_at, prompt_count, status, files_read, last_message)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		s.ID, s.Project, s.Agent, s.AgentType, s.Cwd, s.ParentID, toMillis(s.StartedAt),
		toMillis(s.LastActivityAt), ended, s.PromptCount, status, encodeList(memory.CleanList(s.FilesRead)), s.LastMessage)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ExportFilter selects what Export writes.
type ExportFilter struct {
	Project string    // empty for every project
	Since   time.Time // zero for everything
}

// Export calls fn for every record that matches f, from one snapshot, in a
// stable order: sessions, then observations, summaries and prompts by id.
func (db *DB) Export(ctx context.Context, f ExportFilter, fn func(memory.Record) error) error {
	since := toMillis(f.Since)
	return db.read(ctx, func(tx *sqlx.Tx) error {
		if err := eachRow[sessionRow](ctx, tx, `SELECT `+sessionCols+` FROM sessions
			WHERE (? = '' OR project = ?) AND last_activity_at >= ? ORDER BY started_at, id`,
			[]any{f.Project, f.Project, since}, func(r sessionRow) error {
				s := r.session()
				return fn(memory.Record{Kind: memory.KindSession, Session: &s})
			}); err != nil {
			return err
		}
		if err := eachRow[observationRow](ctx, tx, `SELECT `+observationCols+` FROM observations
			WHERE (? = '' OR project = ?) AND created_at >= ? ORDER BY id`,
			[]any{f.Project, f.Project, since}, func(r observationRow) error {
				o := r.observation()
				return fn(memory.Record{Kind: memory.KindObservation, Observation: &o})
			}); err != nil {
			return err
		}
		if err := eachRow[summaryRow](ctx, tx, `SELECT `+summaryCols+` FROM summaries
			WHERE (? = '' OR project = ?) AND created_at >= ? ORDER BY id`,
			[]any{f.Project, f.Project, since}, func(r summaryRow) error {
				s := r.summary()
				return fn(memory.Record{Kind: memory.KindSummary, Summary: &s})
			}); err != nil {
			return err
		}
		return eachRow[promptRow](ctx, tx, `SELECT `+promptCols+` FROM prompts
			WHERE (? = '' OR project = ?) AND created_at >= ? ORDER BY id`,
			[]any{f.Project, f.Project, since}, func(r promptRow) error {
				p := r.prompt()
				return fn(memory.Record{Kind: memory.KindPrompt, Prompt: &p})
			})
	})
}

// eachRow streams the rows of a query into fn without loading them all.
func eachRow[T any](ctx context.Context, tx *sqlx.Tx, q string, args []any, fn func(T) error) error {
	rows, err := tx.QueryxContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r T
		if err := rows.StructScan(&r); err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}
