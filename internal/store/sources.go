package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// SourceFiles returns what is kept of the source files read for these
// projects: one indexed read, what a session start costs when nothing changed.
func (db *DB) SourceFiles(ctx context.Context, projects ...string) ([]memory.SourceFile, error) {
	if len(projects) == 0 {
		return nil, nil
	}
	// Scanned by hand: this runs at every session start, and sqlx's first
	// use of a struct type costs more than the query.
	q := `SELECT path, project, kind, size, mtime, hash FROM source_files WHERE project IN (?` +
		strings.Repeat(`, ?`, len(projects)-1) + `) ORDER BY path, project`
	args := make([]any, len(projects))
	for i, p := range projects {
		args[i] = p
	}
	rows, err := db.q().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, mapErr(fmt.Errorf("reading source files: %w", err))
	}
	defer rows.Close()
	var out []memory.SourceFile
	for rows.Next() {
		var f memory.SourceFile
		if err := rows.Scan(&f.Path, &f.Project, &f.Kind, &f.Size, &f.Mtime, &f.Hash); err != nil {
			return nil, mapErr(fmt.Errorf("reading source files: %w", err))
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(fmt.Errorf("reading source files: %w", err))
	}
	return out, nil
}

// SourceEntries returns the entries last imported from a source file.
func (db *DB) SourceEntries(ctx context.Context, path, project string) ([]memory.SourceEntry, error) {
	var es []memory.SourceEntry
	err := db.q().SelectContext(ctx, &es, `SELECT entry, uuid, hash, section FROM source_entries
		WHERE path = ? AND project = ? ORDER BY ord`, path, project)
	if err != nil {
		return nil, mapErr(fmt.Errorf("reading the entries of %s: %w", path, err))
	}
	return es, nil
}

// TouchSource records a source file's stat and hash without changing its
// entries (its content is the same).
func (db *DB) TouchSource(ctx context.Context, f memory.SourceFile) error {
	_, err := db.change(ctx, `INSERT INTO source_files (path, project, kind, size, mtime, hash, read_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path, project) DO UPDATE SET kind = excluded.kind,
		size = excluded.size, mtime = excluded.mtime, hash = excluded.hash, read_at = excluded.read_at`,
		f.Path, f.Project, f.Kind, f.Size, f.Mtime, f.Hash, toMillis(f.ReadAt))
	return err
}

// ReplaceSource makes the observations of a source file what its entries
// are now, in one transaction: an entry not seen before is added in
// session s (created when missing), one whose text changed updates its
// observation, and one no longer in the file retires its observation
// unless another file still has it. An
// entry whose content another observation of the session already has is
// left out. The file's stat and hash are recorded with them.
func (db *DB) ReplaceSource(ctx context.Context, f memory.SourceFile, s memory.Session, entries []memory.Sourced) (memory.SourceResult, error) {
	var res memory.SourceResult
	err := db.Write(ctx, func(t *DB) error {
		res = memory.SourceResult{}
		old, err := t.SourceEntries(ctx, f.Path, f.Project)
		if err != nil {
			return err
		}
		byKey := make(map[string]memory.SourceEntry, len(old))
		for _, e := range old {
			byKey[e.Key] = e
		}
		if _, err := t.change(ctx, `DELETE FROM source_entries WHERE path = ? AND project = ?`, f.Path, f.Project); err != nil {
			return err
		}
		if len(entries) > 0 {
			if _, err := t.EnsureSession(ctx, s); err != nil {
				return err
			}
		}
		kept := map[string]bool{}
		for i, e := range entries {
			prev, had := byKey[e.Entry.Key]
			ok, err := t.putSourced(ctx, s.ID, e, had && prev.Hash == e.Entry.Hash, &res)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			kept[e.Entry.UUID] = true
			if _, err := t.change(ctx, `INSERT INTO source_entries (path, project, entry, uuid, hash, section, ord)
				VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				f.Path, f.Project, e.Entry.Key, e.Entry.UUID, e.Entry.Hash, e.Entry.Section, i); err != nil {
				return err
			}
		}
		for _, e := range old {
			if kept[e.UUID] {
				continue
			}
			// Another file may hold the same record (two clones of one
			// repository): it stays while one does.
			n, err := t.change(ctx, `DELETE FROM observations WHERE uuid = ?1
				AND NOT EXISTS (SELECT 1 FROM source_entries WHERE uuid = ?1)`, e.UUID)
			if err != nil {
				return err
			}
			res.Retired += int(n)
		}
		return t.TouchSource(ctx, f)
	})
	if err != nil {
		return memory.SourceResult{}, fmt.Errorf("importing %s: %w", f.Path, err)
	}
	return res, nil
}

// putSourced adds or updates the observation of one entry; same says its
// text is what was imported last time. ok is false when the entry was left
// out (its content is another observation's).
func (db *DB) putSourced(ctx context.Context, session string, e memory.Sourced, same bool, res *memory.SourceResult) (ok bool, err error) {
	o := e.Observation
	o.UUID, o.SessionID = e.Entry.UUID, session
	var cur struct {
		ID      int64  `db:"id"`
		Session string `db:"session_id"`
		Hash    string `db:"content_hash"`
	}
	err = db.q().GetContext(ctx, &cur, `SELECT id, session_id, content_hash FROM observations WHERE uuid = ?`, o.UUID)
	o.Normalize()
	switch {
	case isNoRows(err):
		a, err := db.AddObservation(ctx, o)
		if memory.IsInvalid(err) {
			return false, nil // nothing left of it to store (all private, say)
		}
		if err != nil {
			return false, err
		}
		if a.Duplicate {
			return false, nil
		}
		res.Added++
		return true, nil
	case err != nil:
		return false, err
	case same, cur.Hash == o.Hash():
		// Unchanged, or already here as it is (a repository's record
		// this machine wrote): it stays where it is.
		res.Unchanged++
		return true, nil
	}
	o.ID, o.SessionID = cur.ID, cur.Session
	id := cur.ID
	if _, err := db.UpdateObservation(ctx, o); err != nil {
		if memory.IsInvalid(err) {
			// The new text is another entry's: this one goes.
			_, err := db.change(ctx, `DELETE FROM observations WHERE id = ?`, id)
			return false, err
		}
		return false, err
	}
	res.Updated++
	return true, nil
}

// ForgottenObservations returns the uuids of a project's observations that
// were deleted here, with when: a forget, a retired entry, a pulled
// tombstone (sync_tombstones keeps them for team sync).
func (db *DB) ForgottenObservations(ctx context.Context, project string) (map[string]time.Time, error) {
	var rows []struct {
		UUID string `db:"uuid"`
		At   int64  `db:"deleted_at"`
	}
	err := db.q().SelectContext(ctx, &rows, `SELECT substr(key, length(?2) + 1) AS uuid, deleted_at FROM sync_tombstones
		WHERE project = ?1 AND key LIKE ?2 || '%'`, project, memory.KeyObservation)
	if err != nil {
		return nil, mapErr(fmt.Errorf("reading forgotten observations: %w", err))
	}
	out := make(map[string]time.Time, len(rows))
	for _, r := range rows {
		out[r.UUID] = fromMillis(r.At)
	}
	return out, nil
}
