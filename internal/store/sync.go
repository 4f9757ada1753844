package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// What team memory (internal/team) needs from the local file. A record
// travels under its key (memory.Record.Key); prompts never leave the
// machine.

// Share marks a project as shared with the team; it reports whether it was
// not shared before.
func (db *DB) Share(ctx context.Context, project string, at time.Time) (bool, error) {
	n, err := db.change(ctx, `INSERT INTO sync_projects (project, shared_at) VALUES (?, ?) ON CONFLICT DO NOTHING`,
		project, toMillis(at))
	return n == 1, err
}

// Unshare stops sharing a project: nothing of it is pushed or pulled from
// now on, and what it had in the cluster stays there. Sharing it again
// pushes and pulls it whole (both are idempotent).
func (db *DB) Unshare(ctx context.Context, project string) (bool, error) {
	var was bool
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sync_projects WHERE project = ?`, project)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		was = n == 1
		for _, q := range []string{`DELETE FROM sync_log WHERE project = ?`, `DELETE FROM sync_state WHERE project = ?`,
			`DELETE FROM sync_quarantine WHERE project = ?`} {
			if _, err := tx.ExecContext(ctx, q, project); err != nil {
				return err
			}
		}
		return nil
	})
	return was, err
}

// SharedProjects lists the shared projects, sorted.
func (db *DB) SharedProjects(ctx context.Context) ([]string, error) {
	var out []string
	err := db.q().SelectContext(ctx, &out, `SELECT project FROM sync_projects ORDER BY project`)
	return out, mapErr(err)
}

// MachineID returns this database's origin name: the host name and a
// random suffix made the first time it is asked for.
func (db *DB) MachineID(ctx context.Context) (string, error) {
	var id string
	err := db.q().GetContext(ctx, &id, `SELECT value FROM sync_meta WHERE key = 'machine'`)
	if err == nil {
		return id, nil
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "machine"
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	id = host + "-" + hex.EncodeToString(b)
	if _, err := db.change(ctx, `INSERT INTO sync_meta (key, value) VALUES ('machine', ?) ON CONFLICT DO NOTHING`, id); err != nil {
		return "", err
	}
	err = db.q().GetContext(ctx, &id, `SELECT value FROM sync_meta WHERE key = 'machine'`)
	return id, mapErr(err)
}

// SyncState is where a project stands against one cluster.
type SyncState struct {
	Cluster  string    `json:"cluster"`
	Project  string    `json:"project"`
	Pushed   int64     `json:"pushed"`  // last local change pushed (sync_log id)
	Pulled   int64     `json:"pulled"`  // last cluster sequence pulled
	Pending  int64     `json:"pending"` // local changes not yet pushed
	SyncedAt time.Time `json:"synced_at"`
	Known    bool      `json:"known"` // the project was synced with this cluster before
	// Quarantined counts the cluster's rows a pull set aside (ApplyPulled).
	Quarantined int64 `json:"quarantined"`
}

// BeginSync makes sure a project has a state against a cluster and returns
// its cursors (Pending is not counted). The first time, every record of the
// project, and every tombstone, is queued for the push, so a project shared
// after it had records sends them all.
func (db *DB) BeginSync(ctx context.Context, cluster, project string) (SyncState, error) {
	st := SyncState{Cluster: cluster, Project: project, Known: true}
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO sync_state (cluster, project) VALUES (?, ?) ON CONFLICT DO NOTHING`,
			cluster, project)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			if err := queueProject(ctx, tx, cluster, project); err != nil {
				return err
			}
		}
		var cur struct {
			Pushed   int64 `db:"pushed"`
			Pulled   int64 `db:"pulled"`
			SyncedAt int64 `db:"synced_at"`
		}
		if err := tx.GetContext(ctx, &cur, `SELECT pushed, pulled, synced_at FROM sync_state WHERE cluster = ? AND project = ?`,
			cluster, project); err != nil {
			return err
		}
		st.Pushed, st.Pulled = cur.Pushed, cur.Pulled
		if cur.SyncedAt > 0 {
			st.SyncedAt = fromMillis(cur.SyncedAt)
		}
		return nil
	})
	if err != nil {
		return SyncState{}, fmt.Errorf("starting sync of project %s: %w", project, err)
	}
	return st, nil
}

// queueProject queues every record of a project, and every tombstone, for
// its first push to cluster.
func queueProject(ctx context.Context, tx *sqlx.Tx, cluster, project string) error {
	var mark int64
	if err := tx.GetContext(ctx, &mark, `SELECT coalesce(max(id), 0) FROM sync_log`); err != nil {
		return err
	}
	for _, q := range []string{
		`INSERT INTO sync_log (key, project) SELECT 'session:' || id, project FROM sessions WHERE project = ?1 ORDER BY started_at, id`,
		`INSERT INTO sync_log (key, project) SELECT 'observation:' || uuid, project FROM observations WHERE project = ?1 ORDER BY id`,
		`INSERT INTO sync_log (key, project) SELECT 'summary:' || session_id, project FROM summaries WHERE project = ?1 ORDER BY id`,
		`INSERT INTO sync_log (key, project) SELECT key, project FROM sync_tombstones WHERE project = ?1 ORDER BY deleted_at`,
	} {
		if _, err := tx.ExecContext(ctx, q, project); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE sync_state SET pushed = ? WHERE cluster = ? AND project = ?`, mark, cluster, project)
	return err
}

// SyncStates returns the state of every shared project against a cluster
// (one project when project is not empty). A project never synced with it
// has Known false and counts all its records as pending.
func (db *DB) SyncStates(ctx context.Context, cluster, project string) ([]SyncState, error) {
	var rows []struct {
		Project  string `db:"project"`
		Pushed   int64  `db:"pushed"`
		Pulled   int64  `db:"pulled"`
		SyncedAt int64  `db:"synced_at"`
		Known    bool   `db:"known"`
		Pending  int64  `db:"pending"`
		Bad      int64  `db:"bad"`
	}
	err := db.q().SelectContext(ctx, &rows, `SELECT p.project, coalesce(s.pushed, 0) AS pushed,
		coalesce(s.pulled, 0) AS pulled, coalesce(s.synced_at, 0) AS synced_at, s.project IS NOT NULL AS known,
		(SELECT count(*) FROM sync_quarantine q WHERE q.cluster = ?1 AND q.project = p.project) AS bad,
		CASE WHEN s.project IS NULL THEN
			(SELECT count(*) FROM sessions WHERE project = p.project) +
			(SELECT count(*) FROM observations WHERE project = p.project) +
			(SELECT count(*) FROM summaries WHERE project = p.project) +
			(SELECT count(*) FROM sync_tombstones WHERE project = p.project)
		ELSE (SELECT count(DISTINCT key) FROM sync_log WHERE project = p.project AND id > s.pushed) END AS pending
		FROM sync_projects p LEFT JOIN sync_state s ON s.project = p.project AND s.cluster = ?1
		WHERE ?2 = '' OR p.project = ?2 ORDER BY p.project`, cluster, project)
	if err != nil {
		return nil, mapErr(err)
	}
	out := make([]SyncState, len(rows))
	for i, r := range rows {
		out[i] = SyncState{Cluster: cluster, Project: r.Project, Pushed: r.Pushed, Pulled: r.Pulled,
			Pending: r.Pending, Known: r.Known, Quarantined: r.Bad}
		if r.SyncedAt > 0 {
			out[i].SyncedAt = fromMillis(r.SyncedAt)
		}
	}
	return out, nil
}

// Outgoing is one record to push: Record is nil for a tombstone. Stamp
// orders versions of the same key (newest wins): a summary's creation time,
// a tombstone's deletion time; sessions and observations never change.
type Outgoing struct {
	Key       string
	Project   string
	Origin    string // empty: this machine
	Stamp     int64
	Tombstone bool
	Record    *memory.Record
}

// Outbox returns up to limit changes of a project logged after mark, as the
// records to push (the latest version of each key, a key once; a record's
// session first), and the log id up to which they go. It reads each table
// once per call, not once per record.
func (db *DB) Outbox(ctx context.Context, project string, mark int64, limit int) ([]Outgoing, int64, error) {
	var out []Outgoing
	last := mark
	err := db.read(ctx, func(tx *sqlx.Tx) error {
		var logged []struct {
			ID  int64  `db:"id"`
			Key string `db:"key"`
		}
		if err := tx.SelectContext(ctx, &logged, `SELECT id, key FROM sync_log WHERE project = ? AND id > ? ORDER BY id LIMIT ?`,
			project, mark, limit); err != nil {
			return err
		}
		if len(logged) == 0 {
			return nil
		}
		last = logged[len(logged)-1].ID
		keys := make([]string, len(logged))
		for i, l := range logged {
			keys[i] = l.Key
		}
		cur, err := currentRecords(ctx, tx, keys)
		if err != nil {
			return err
		}
		// The sessions of the records, when the log did not name them.
		var more []string
		for _, k := range keys {
			if r, ok := cur.records[k]; ok {
				if s := sessionOf(r.rec); s != "" {
					if _, have := cur.records[memory.KeySession+s]; !have {
						more = append(more, memory.KeySession+s)
					}
				}
			}
		}
		if len(more) > 0 {
			extra, err := currentRecords(ctx, tx, more)
			if err != nil {
				return err
			}
			for k, r := range extra.records {
				cur.records[k] = r
			}
		}
		seen := map[string]bool{}
		var add func(key string)
		add = func(key string) {
			if seen[key] {
				return
			}
			seen[key] = true
			r, ok := cur.records[key]
			if stamp, dead := cur.tombstones[key]; dead && !(ok && outlives(r.rec, r.stamp, stamp)) {
				out = append(out, Outgoing{Key: key, Project: project, Stamp: stamp, Tombstone: true})
				return
			}
			if !ok || awaitsReview(r.rec) {
				// Gone since (its tombstone is logged after it), or held
				// back by the instruction check: flagged records never
				// travel.
				return
			}
			if s := sessionOf(r.rec); s != "" {
				add(memory.KeySession + s)
			}
			out = append(out, Outgoing{Key: key, Project: project, Origin: cur.origins[key], Stamp: r.stamp, Record: &r.rec})
		}
		for _, k := range keys {
			add(k)
		}
		return nil
	})
	if err != nil {
		return nil, mark, fmt.Errorf("reading what project %s has to push: %w", project, err)
	}
	return out, last, nil
}

// awaitsReview reports whether a record is flagged by the instruction check and not
// released by a person.
func awaitsReview(r memory.Record) bool {
	return r.Observation != nil && r.Observation.Review.Held() || r.Summary != nil && r.Summary.Review.Held()
}

type stamped struct {
	rec   memory.Record
	stamp int64
}

type current struct {
	records    map[string]stamped
	tombstones map[string]int64
	origins    map[string]string
}

// currentRecords reads the records, tombstones and origins under keys,
// one query per table.
func currentRecords(ctx context.Context, tx *sqlx.Tx, keys []string) (current, error) {
	cur := current{records: map[string]stamped{}, tombstones: map[string]int64{}, origins: map[string]string{}}
	ids := map[string][]string{}
	for _, k := range keys {
		for _, p := range []string{memory.KeySession, memory.KeyObservation, memory.KeySummary} {
			if strings.HasPrefix(k, p) {
				ids[p] = append(ids[p], strings.TrimPrefix(k, p))
			}
		}
	}
	list := func(v []string) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	all := list(keys)
	var tombs []struct {
		Key       string `db:"key"`
		DeletedAt int64  `db:"deleted_at"`
	}
	if err := tx.SelectContext(ctx, &tombs, `SELECT key, deleted_at FROM sync_tombstones WHERE key IN (SELECT value FROM json_each(?))`, all); err != nil {
		return cur, err
	}
	for _, t := range tombs {
		cur.tombstones[t.Key] = t.DeletedAt
	}
	var origins []struct {
		Key    string `db:"key"`
		Origin string `db:"origin"`
	}
	if err := tx.SelectContext(ctx, &origins, `SELECT key, origin FROM sync_origins WHERE key IN (SELECT value FROM json_each(?))`, all); err != nil {
		return cur, err
	}
	for _, o := range origins {
		cur.origins[o.Key] = o.Origin
	}
	if v := ids[memory.KeySession]; len(v) > 0 {
		var rows []sessionRow
		if err := tx.SelectContext(ctx, &rows, `SELECT `+sessionCols+` FROM sessions WHERE id IN (SELECT value FROM json_each(?))`, list(v)); err != nil {
			return cur, err
		}
		for _, r := range rows {
			s := r.session()
			rec := memory.Record{Kind: memory.KindSession, Session: &s}
			cur.records[rec.Key()] = stamped{rec, r.StartedAt}
		}
	}
	if v := ids[memory.KeyObservation]; len(v) > 0 {
		var rows []observationRow
		if err := tx.SelectContext(ctx, &rows, `SELECT `+observationCols+` FROM observations WHERE uuid IN (SELECT value FROM json_each(?))`, list(v)); err != nil {
			return cur, err
		}
		for _, r := range rows {
			o := r.observation()
			rec := memory.Record{Kind: memory.KindObservation, Observation: &o}
			cur.records[rec.Key()] = stamped{rec, r.CreatedAt}
		}
	}
	if v := ids[memory.KeySummary]; len(v) > 0 {
		var rows []summaryRow
		if err := tx.SelectContext(ctx, &rows, `SELECT `+summaryCols+` FROM summaries WHERE session_id IN (SELECT value FROM json_each(?))`, list(v)); err != nil {
			return cur, err
		}
		for _, r := range rows {
			s := r.summary()
			rec := memory.Record{Kind: memory.KindSummary, Summary: &s}
			cur.records[rec.Key()] = stamped{rec, r.CreatedAt}
		}
	}
	return cur, nil
}

// outlives reports whether a record stamped stamp is newer than a tombstone
// of its key stamped dead: only a summary can be. A session keeps one
// summary, replaced as it goes on; forgetting it removes the versions
// written until then, and a summary written after the forget (of what the
// session did since) is a new one, which the tombstone must not stop. Any
// other record keeps its key for ever, and its tombstone wins.
func outlives(r memory.Record, stamp, dead int64) bool {
	return r.Kind == memory.KindSummary && stamp > dead
}

// sessionOf is the session a record needs before it: none for a session.
func sessionOf(r memory.Record) string {
	if r.Kind == memory.KindSession {
		return ""
	}
	return r.SessionID()
}

// MarkPushed records that a project's changes up to mark are in the
// cluster, and drops the log entries every cluster has.
func (db *DB) MarkPushed(ctx context.Context, cluster, project string, mark int64, at time.Time) error {
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE sync_state SET pushed = max(pushed, ?), synced_at = ? WHERE cluster = ? AND project = ?`,
			mark, toMillis(at), cluster, project); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM sync_log WHERE project = ?1
			AND id <= (SELECT min(pushed) FROM sync_state WHERE project = ?1)`, project)
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the push of project %s: %w", project, err)
	}
	return nil
}

// Incoming is one record pulled from the cluster: Record is the zero value
// for a tombstone. Its key and record name sessions as the cluster does
// (memory.TeamSessionID); ApplyPulled maps them to this file's ids. A row
// the puller could not read as a record has Problem set (and Key, when it
// had one): ApplyPulled quarantines it.
type Incoming struct {
	Seq       int64
	Key       string
	Origin    string
	Stamp     int64
	Tombstone bool
	Record    memory.Record
	Problem   string
}

// Pulled counts what a pull changed here, and the rows it set aside
// (Quarantine lists them).
type Pulled struct {
	Added       int `json:"added"`
	Updated     int `json:"updated"`
	Removed     int `json:"removed"`
	Skipped     int `json:"skipped"`
	Quarantined int `json:"quarantined"`
}

// Add adds what another pull changed.
func (p *Pulled) Add(o Pulled) {
	p.Added += o.Added
	p.Updated += o.Updated
	p.Removed += o.Removed
	p.Skipped += o.Skipped
	p.Quarantined += o.Quarantined
}

// Quarantined is a row of the cluster a pull set aside: Seq is its place
// in the cluster, Reason why it was not applied.
type Quarantined struct {
	Seq    int64  `json:"seq" db:"seq"`
	Key    string `json:"key" db:"key"`
	Reason string `json:"reason" db:"reason"`
}

// Quarantine lists the rows of a project's pulls from a cluster set aside
// after seq, in the cluster's order, up to limit.
func (db *DB) Quarantine(ctx context.Context, cluster, project string, after int64, limit int) ([]Quarantined, error) {
	var out []Quarantined
	err := db.q().SelectContext(ctx, &out, `SELECT seq, key, reason FROM sync_quarantine
		WHERE cluster = ? AND project = ? AND seq > ? ORDER BY seq LIMIT ?`, cluster, project, after, limit)
	return out, mapErr(err)
}

// ApplyPulled writes records pulled from a cluster and moves the project's
// cursor to seq, in one transaction: a pull killed at any point leaves the
// file as it was, and the next pull reads the same records again. A row
// with a Problem, a record or tombstone naming a record or tombstone of
// another project here (keys are one namespace across projects: an
// observation's uuid, a session id too long to carry its project), and a
// record whose session is neither here nor before it in recs are
// quarantined: kept in sync_quarantine, never applied. A record of a
// forgotten session is skipped. A key with
// a tombstone here is never written, but for a summary newer than its
// tombstone (outlives) whose session is not a tombstone (isGone); a
// tombstone deletes its record (with the session's records for a session,
// a summary's versions up to its stamp) and stays; a summary replaces the
// session's summary only when it is newer. Nothing written here is logged
// for a push: it came from the cluster. Sessions get their ids here as
// toLocal says, before any of this: keys and tombstones are this file's.
func (db *DB) ApplyPulled(ctx context.Context, cluster, project string, recs []Incoming, seq int64, at time.Time) (Pulled, error) {
	var res Pulled
	var toImport []memory.Record
	nobs := 0
	for _, r := range recs {
		if r.Record.Kind == memory.KindObservation {
			nobs++
		}
	}
	big := db.bulk(nobs)
	removed := false
	err := db.bulkTx(ctx, big, func(tx *sqlx.Tx) error {
		res, toImport, removed = Pulled{}, nil, false
		if _, err := tx.ExecContext(ctx, `INSERT INTO sync_applying (one) VALUES (1)`); err != nil {
			return err
		}
		recs, err := toLocal(ctx, tx, project, recs)
		if err != nil {
			return err
		}
		here, err := keysHere(ctx, tx, project, recs)
		if err != nil {
			return err
		}
		gone := here.gone
		origins := map[string]string{}
		var summaries []Incoming
		var bad []Quarantined
		quarantine := func(r Incoming, why string) {
			bad = append(bad, Quarantined{Seq: r.Seq, Key: r.Key, Reason: why})
		}
		for _, r := range recs {
			switch {
			case r.Problem != "":
				quarantine(r, r.Problem)
			case here.elsewhere(r) != "":
				quarantine(r, fmt.Sprintf("filed under project %s but names a record of project %s here", project, here.elsewhere(r)))
			case r.Tombstone:
				n, err := deleteByKey(ctx, tx, project, r.Key, r.Stamp)
				if err != nil {
					return err
				}
				if n > 0 {
					res.Removed++
					removed = true
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO sync_tombstones (key, project, deleted_at) VALUES (?, ?, ?)
					ON CONFLICT (key) DO UPDATE SET deleted_at = max(deleted_at, excluded.deleted_at)
					WHERE sync_tombstones.project = excluded.project`,
					r.Key, project, r.Stamp); err != nil {
					return err
				}
				gone[r.Key] = max(gone[r.Key], r.Stamp)
			case isGone(gone, r):
				res.Skipped++
			case sessionOf(r.Record) != "" && !here.live[memory.KeySession+sessionOf(r.Record)]:
				quarantine(r, "its session "+sessionOf(r.Record)+" is neither here nor before it in the cluster")
			case r.Record.Kind == memory.KindSummary:
				if s := r.Record.Summary; s != nil && s.Member == "" {
					s.Member = r.Origin
				}
				summaries = append(summaries, r) // after the sessions
				origins[r.Key] = r.Origin
			default:
				if o := r.Record.Observation; o != nil && o.Member == "" {
					o.Member = r.Origin // the member whose machine wrote it
				}
				toImport = append(toImport, r.Record)
				origins[r.Key] = r.Origin
				if r.Record.Kind == memory.KindSession {
					here.live[r.Key] = true
				}
			}
		}
		if len(bad) > 0 {
			b, _ := json.Marshal(bad)
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO sync_quarantine (cluster, project, seq, key, reason, at)
				SELECT ?, ?, value ->> '$.seq', value ->> '$.key', value ->> '$.reason', ? FROM json_each(?)`,
				cluster, project, toMillis(at), string(b)); err != nil {
				return err
			}
			res.Quarantined = len(bad)
		}
		var pre []derived
		if big {
			pre = deriveAll(toImport)
		}
		ir, err := db.importIn(ctx, tx, oneBatch(toImport, pre), big)
		if err != nil {
			return err
		}
		for _, n := range ir.Added {
			res.Added += n
		}
		for _, n := range ir.Skipped {
			res.Skipped += n
		}
		for _, r := range summaries {
			n, err := newerSummary(ctx, tx, *r.Record.Summary)
			if err != nil {
				return fmt.Errorf("%s: %w", r.Key, err)
			}
			if n == 0 {
				res.Skipped++
			} else {
				res.Updated++
			}
		}
		type originRow struct{ Key, Origin string }
		rows := make([]originRow, 0, len(origins))
		for k, o := range origins {
			rows = append(rows, originRow{k, o})
		}
		ob, _ := json.Marshal(rows)
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO sync_origins (key, origin)
			SELECT value ->> '$.Key', value ->> '$.Origin' FROM json_each(?)`, string(ob)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sync_state SET pulled = max(pulled, ?), synced_at = ? WHERE cluster = ? AND project = ?`,
			seq, toMillis(at), cluster, project); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM sync_applying`)
		return err
	})
	if err != nil {
		return Pulled{}, fmt.Errorf("applying what was pulled for project %s: %w", project, err)
	}
	if removed {
		return res, db.scrub(ctx, "records forgotten by the team")
	}
	return res, nil
}

// toLocal returns recs, pulled for project, with the cluster's session
// names (memory.TeamSessionID) in their keys and records replaced by this
// file's session ids: the plain id, unless this file holds it (a session
// or its tombstone) for another project; then the cluster's name, which
// names the session in project alone. A session keeps the id it got here
// first, so every record of it meets it.
func toLocal(ctx context.Context, tx *sqlx.Tx, project string, recs []Incoming) ([]Incoming, error) {
	keyed := func(key string) (string, string, bool) {
		for _, p := range []string{memory.KeySession, memory.KeySummary} {
			if name, ok := strings.CutPrefix(key, p); ok {
				return p, name, true
			}
		}
		return "", "", false
	}
	// The cluster's names in recs, and the two ids each may have here.
	ids := map[string]string{} // the cluster's name -> the id here
	var candidates []string
	add := func(name string) {
		if _, seen := ids[name]; seen || name == "" {
			return
		}
		plain := memory.PlainSessionID(name, project)
		ids[name] = plain
		candidates = append(candidates, plain, memory.TeamSessionID(plain, project))
	}
	for _, r := range recs {
		if _, name, ok := keyed(r.Key); ok {
			add(name)
		}
		if !r.Tombstone {
			add(r.Record.SessionID())
			if r.Record.Session != nil {
				add(r.Record.Session.ParentID)
			}
		}
	}
	if len(ids) == 0 {
		return recs, nil
	}
	// Whose each id is here: a session's project, else its tombstone's.
	list, _ := json.Marshal(candidates)
	var rows []struct {
		ID      string `db:"id"`
		Project string `db:"project"`
		Live    bool   `db:"live"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT id, project, 1 AS live FROM sessions WHERE id IN (SELECT value FROM json_each(?1))
		UNION ALL SELECT substr(key, length(?2) + 1), project, 0 FROM sync_tombstones
		WHERE key IN (SELECT ?2 || value FROM json_each(?1))`, string(list), memory.KeySession); err != nil {
		return nil, err
	}
	owner := map[string]string{}
	for _, r := range rows {
		if _, have := owner[r.ID]; !have || r.Live {
			owner[r.ID] = r.Project
		}
	}
	for name, plain := range ids {
		named := memory.TeamSessionID(plain, project)
		if o := owner[plain]; o != project && named != plain && (o != "" || owner[named] == project) {
			ids[name] = named
		}
	}
	local := func(name string) string {
		if id, ok := ids[name]; ok {
			return id
		}
		return name
	}
	out := make([]Incoming, len(recs))
	for i, r := range recs {
		if p, name, ok := keyed(r.Key); ok {
			r.Key = p + local(name)
		}
		if !r.Tombstone {
			r.Record = r.Record.WithSessionIDs(local)
		}
		out[i] = r
	}
	return out, nil
}

// held is what this file holds under the keys of a page pulled for a
// project: gone maps a key of the project to its tombstone's stamp, live
// holds the keys of its sessions here, other names the other project whose
// record or tombstone holds a key.
type held struct {
	gone  map[string]int64
	live  map[string]bool
	other map[string]string
}

// elsewhere names the other project whose record or tombstone holds r's key
// or, for a record, its session's ("" when none does).
func (h held) elsewhere(r Incoming) string {
	if p := h.other[r.Key]; p != "" {
		return p
	}
	if s := sessionOf(r.Record); !r.Tombstone && s != "" {
		return h.other[memory.KeySession+s]
	}
	return ""
}

// keysHere reads what this file holds under the keys of recs (pulled for
// project, with this file's session ids) and the keys of their sessions.
func keysHere(ctx context.Context, tx *sqlx.Tx, project string, recs []Incoming) (held, error) {
	h := held{gone: map[string]int64{}, live: map[string]bool{}, other: map[string]string{}}
	var keys []string
	ids := map[string][]string{}
	add := func(key string) {
		keys = append(keys, key)
		for _, p := range []string{memory.KeySession, memory.KeyObservation, memory.KeySummary} {
			if id, ok := strings.CutPrefix(key, p); ok {
				ids[p] = append(ids[p], id)
			}
		}
	}
	for _, r := range recs {
		if r.Problem != "" {
			continue
		}
		add(r.Key)
		if s := sessionOf(r.Record); !r.Tombstone && s != "" {
			add(memory.KeySession + s) // see isGone
		}
	}
	if len(keys) == 0 {
		return h, nil
	}
	list := func(v []string) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	var rows []struct {
		Key       string `db:"key"`
		Project   string `db:"project"`
		DeletedAt int64  `db:"deleted_at"`
		Live      bool   `db:"live"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT key, project, deleted_at, 0 AS live FROM sync_tombstones WHERE key IN (SELECT value FROM json_each(?1))
		UNION ALL SELECT 'session:' || id, project, 0, 1 FROM sessions WHERE id IN (SELECT value FROM json_each(?2))
		UNION ALL SELECT 'observation:' || uuid, project, 0, 1 FROM observations WHERE uuid IN (SELECT value FROM json_each(?3)) AND project != ?5
		UNION ALL SELECT 'summary:' || session_id, project, 0, 1 FROM summaries WHERE session_id IN (SELECT value FROM json_each(?4)) AND project != ?5`,
		list(keys), list(ids[memory.KeySession]), list(ids[memory.KeyObservation]), list(ids[memory.KeySummary]), project); err != nil {
		return h, err
	}
	for _, r := range rows {
		switch {
		case r.Project != project:
			h.other[r.Key] = r.Project
		case r.Live:
			h.live[r.Key] = true
		default:
			h.gone[r.Key] = r.DeletedAt
		}
	}
	return h, nil
}

// isGone reports whether a pulled record is under a tombstone here: its
// own, or its session's (a forgotten session's records are forgotten with
// it, however new).
func isGone(gone map[string]int64, r Incoming) bool {
	if s := sessionOf(r.Record); s != "" {
		if _, ok := gone[memory.KeySession+s]; ok {
			return true
		}
	}
	dead, ok := gone[r.Key]
	return ok && !outlives(r.Record, r.Stamp, dead)
}

// deleteByKey deletes the record of project under a sync key, for a
// tombstone stamped stamp; a session goes with everything recorded in it, a
// summary only when it is not newer than the tombstone (outlives). A record
// of another project under that key stays.
func deleteByKey(ctx context.Context, tx *sqlx.Tx, project, key string, stamp int64) (int64, error) {
	switch {
	case strings.HasPrefix(key, memory.KeySession):
		d, err := deleteSessions(ctx, tx, `id = ? AND project = ?`, strings.TrimPrefix(key, memory.KeySession), project)
		return d.Sessions + d.Observations + d.Summaries + d.Prompts, err
	case strings.HasPrefix(key, memory.KeyObservation):
		res, err := tx.ExecContext(ctx, `DELETE FROM observations WHERE uuid = ? AND project = ?`,
			strings.TrimPrefix(key, memory.KeyObservation), project)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	case strings.HasPrefix(key, memory.KeySummary):
		res, err := tx.ExecContext(ctx, `DELETE FROM summaries WHERE session_id = ? AND project = ? AND created_at <= ?`,
			strings.TrimPrefix(key, memory.KeySummary), project, stamp)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
	return 0, memory.Invalid("sync key", "session:, observation: or summary: and an id", key)
}

// newerSummary writes s as its session's summary unless the one here is as
// new or newer; it reports how many rows changed. The session must be here.
func newerSummary(ctx context.Context, tx *sqlx.Tx, s memory.Summary) (int64, error) {
	if _, err := getSession(ctx, tx, s.SessionID); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO summaries (uuid, session_id, project, request, investigated,
		learned, completed, next_steps, decisions, concepts, files, text, generator, token_count, created_at, covers_until,
		`+provenanceCols+`)
		SELECT ?, ?, project, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM sessions WHERE id = ?2
		ON CONFLICT (session_id) DO UPDATE SET uuid = excluded.uuid, request = excluded.request,
			investigated = excluded.investigated, learned = excluded.learned, completed = excluded.completed,
			next_steps = excluded.next_steps, decisions = excluded.decisions, concepts = excluded.concepts,
			files = excluded.files, text = excluded.text, generator = excluded.generator,
			token_count = excluded.token_count, created_at = excluded.created_at, covers_until = excluded.covers_until,
			`+provenanceUpdate+`
		WHERE excluded.created_at > summaries.created_at`,
		append([]any{s.UUID, s.SessionID, s.Request, s.Investigated, s.Learned, s.Completed, s.NextSteps, s.Decisions,
			encodeList(memory.CleanList(s.Concepts)), encodeList(memory.CleanList(s.Files)), s.Text, s.Generator,
			s.TokenCount, toMillis(s.CreatedAt), toMillis(s.CoversUntil)}, provenanceArgs(s.Provenance, s.Review)...)...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// SyncMeta reads a value this machine keeps about team sync ("" when
// unset): "cluster" is the id of the cluster it last synced with.
func (db *DB) SyncMeta(ctx context.Context, key string) (string, error) {
	var v string
	err := db.q().GetContext(ctx, &v, `SELECT value FROM sync_meta WHERE key = ?`, key)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, mapErr(err)
}

// SetSyncMeta writes a value SyncMeta reads.
func (db *DB) SetSyncMeta(ctx context.Context, key, value string) error {
	_, err := db.change(ctx, `INSERT INTO sync_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		key, value)
	return err
}
