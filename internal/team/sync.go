// Package team moves a machine's memory to and from a team's rqlite
// cluster: push what this file has that the cluster lacks, pull what it
// lacks, for the projects shared with the team. See README.md.
package team

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

// Options of a sync.
type Options struct {
	Remote   Remote
	Projects []string // empty: every shared project
	PushOnly bool
	PullOnly bool
	// Batch: records per push transaction; Page: records per pull.
	Batch, Page int
	Now         func() time.Time
	// Progress, when set, hears of every batch pushed or page applied.
	Progress func(project, what string, n int)
}

// ProjectResult is what a sync did for one project.
type ProjectResult struct {
	Project string       `json:"project"`
	Pushed  int          `json:"pushed"`
	Pulled  store.Pulled `json:"pulled"`
	Cursor  int64        `json:"cursor"`
}

// Result is what a sync did.
type Result struct {
	Cluster  string          `json:"cluster"`
	Origin   string          `json:"origin"`
	Projects []ProjectResult `json:"projects"`
}

func (o *Options) defaults() {
	if o.Batch <= 0 {
		o.Batch = 2000
	}
	if o.Page <= 0 {
		o.Page = 10000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Sync pushes, then pulls, every shared project (or those named). Each
// batch is its own step: a sync cut off anywhere leaves what it finished in
// place, and the next one goes on from there; nothing is doubled, because
// the cluster keeps one row per key (memory.TeamKey) and the file applies a
// page together with its cursor.
func Sync(ctx context.Context, db *store.DB, o Options) (Result, error) {
	o.defaults()
	shared, err := db.SharedProjects(ctx)
	if err != nil {
		return Result{}, err
	}
	projects := shared
	if len(o.Projects) > 0 {
		projects = nil
		for _, p := range o.Projects {
			if !slices.Contains(shared, p) {
				return Result{}, memory.Invalid("project", "a shared project (mem share)", p)
			}
			projects = append(projects, p)
		}
	}
	if len(projects) == 0 {
		return Result{}, nil // nothing shared: the cluster is not even asked
	}
	c, err := newClient(o.Remote)
	if err != nil {
		return Result{}, err
	}
	info, err := ensureSchema(ctx, c, o.Now)
	if err != nil {
		return Result{}, err
	}
	cluster := info.id
	origin, err := db.MachineID(ctx)
	if err != nil {
		return Result{}, err
	}
	if err := db.SetSyncMeta(ctx, "cluster", cluster); err != nil {
		return Result{}, err
	}
	res := Result{Cluster: cluster, Origin: origin}
	for _, p := range projects {
		pr := ProjectResult{Project: p}
		st, err := db.BeginSync(ctx, cluster, p)
		if err == nil && !o.PullOnly {
			pr.Pushed, err = push(ctx, c, db, o, info, origin, p, st.Pushed)
		}
		if err == nil && !o.PushOnly {
			pr.Pulled, pr.Cursor, err = pull(ctx, c, db, o, cluster, origin, p, st.Pulled)
		}
		res.Projects = append(res.Projects, pr)
		if err != nil {
			return res, fmt.Errorf("syncing project %s: %w", p, err)
		}
	}
	return res, nil
}

// upsert writes one record into the cluster unless the cluster has it
// already. A session's summary key holds its newest version: a summary or
// a tombstone replaces a summary when newer (a tombstone also when as
// new), and a summary replaces a tombstone when written after it, since a
// forget removes the summaries written until then, not the session's
// summaries to come (store.outlives), unless the session itself was
// forgotten (its tombstone under the cluster's name or, from an older mem,
// the plain id: the statement's last argument, see upsertArgs). Any other
// key is replaced only by its tombstone, and a tombstone there for ever. A
// row of another project is never replaced (a session id too long to
// carry its project, see memory.TeamSessionID). A write that changes
// nothing keeps its seq, so pushing twice changes nothing. On a cluster
// whose mem_records has the version-1 uuid column, it is filled with an
// empty string.
func upsert(uuidColumn bool) string {
	cols, vals := "", ""
	if uuidColumn {
		cols, vals = "uuid, ", "'', "
	}
	return `INSERT INTO mem_records (seq, key, kind, ` + cols + `project, origin, stamp, body)
	VALUES ((SELECT coalesce(max(seq), 0) + 1 FROM mem_records), ?, ?, ` + vals + `?, ?, ?, ?)
	ON CONFLICT (key) DO UPDATE SET seq = excluded.seq, kind = excluded.kind,
		origin = excluded.origin, stamp = excluded.stamp, body = excluded.body
	WHERE mem_records.project = excluded.project AND CASE
		WHEN mem_records.key LIKE 'summary:%' THEN (excluded.stamp > mem_records.stamp
			OR (excluded.kind = 'tombstone' AND mem_records.kind = 'summary' AND excluded.stamp = mem_records.stamp))
			AND (excluded.kind = 'tombstone' OR NOT EXISTS (SELECT 1 FROM mem_records s
				WHERE s.key IN ('session:' || substr(excluded.key, 9), ?) AND s.project = excluded.project
					AND s.kind = 'tombstone'))
		ELSE mem_records.kind != 'tombstone' AND excluded.kind = 'tombstone'
	END`
}

// upsertArgs are upsert's arguments for a write of key (the cluster's) of
// project; the last one is the plain key of a summary's session.
func upsertArgs(key, kind, project, origin string, stamp int64, body string) []any {
	session := ""
	if id, ok := strings.CutPrefix(key, memory.KeySummary); ok {
		session = memory.PlainKey(memory.KeySession+id, project)
	}
	return []any{key, kind, project, origin, stamp, body, session}
}

// forgetPlain turns the row a mem that named sessions by their plain id
// pushed under a session's or summary's key into its tombstone, when it is
// the same project's; a later seq, so that pulls see it.
const forgetPlain = `UPDATE mem_records SET seq = (SELECT coalesce(max(seq), 0) + 1 FROM mem_records),
	kind = 'tombstone', origin = ?, stamp = ?, body = ''
	WHERE key = ? AND project = ? AND kind != 'tombstone'`

const kindTombstone = "tombstone"

func push(ctx context.Context, c *client, db *store.DB, o Options, info clusterInfo, origin, project string, mark int64) (int, error) {
	total := 0
	write := upsert(info.uuidColumn)
	var buf bytes.Buffer
	enc := interchange.NewEncoder(&buf) // flushed into buf for each record
	for {
		out, last, err := db.Outbox(ctx, project, mark, o.Batch)
		if err != nil {
			return total, err
		}
		if last == mark {
			return total, nil
		}
		stmts := make([]stmt, 0, len(out))
		for _, r := range out {
			from := r.Origin
			if from == "" {
				from = origin
			}
			// The cluster names a session by its id and project.
			key, kind, body := memory.TeamKey(r.Key, project), kindTombstone, ""
			if plain := memory.PlainKey(key, project); r.Tombstone && plain != key {
				// What an older mem pushed under the plain key goes too.
				stmts = append(stmts, st(forgetPlain, from, r.Stamp, plain, project))
			}
			if !r.Tombstone {
				rec := r.Record.WithSessionIDs(func(id string) string { return memory.TeamSessionID(id, project) })
				buf.Reset()
				if err := enc.Encode(rec); err != nil {
					return total, err
				}
				if err := enc.Flush(); err != nil {
					return total, err
				}
				key, kind, body = rec.Key(), rec.Kind, strings.TrimSuffix(buf.String(), "\n")
			}
			stmts = append(stmts, st(write, upsertArgs(key, kind, project, from, r.Stamp, body)...))
		}
		if len(stmts) > 0 {
			if _, err := c.execute(ctx, true, stmts); err != nil {
				return total, fmt.Errorf("pushing: %w", err)
			}
		}
		if err := db.MarkPushed(ctx, info.id, project, last, o.Now()); err != nil {
			return total, err
		}
		total += len(out)
		mark = last
		if o.Progress != nil {
			o.Progress(project, "pushed", len(out))
		}
	}
}

// page is one page of a pull: its records, the seq it ends at, and how
// many rows the cluster sent.
type page struct {
	recs []store.Incoming
	last int64
	rows int
	err  error
}

func pull(ctx context.Context, c *client, db *store.DB, o Options, cluster, origin, project string, cursor int64) (store.Pulled, int64, error) {
	var total store.Pulled
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The next page is fetched and decoded while this one is applied.
	pages := make(chan page, 1)
	go func() {
		defer close(pages)
		from := cursor
		for {
			pg, err := fetchPage(ctx, c, o, origin, project, from)
			if err != nil {
				pg.err = err
			}
			select {
			case pages <- pg:
			case <-ctx.Done():
				return
			}
			if err != nil || pg.rows < o.Page {
				return
			}
			from = pg.last
		}
	}()
	for pg := range pages {
		if pg.err != nil {
			return total, cursor, pg.err
		}
		if pg.rows == 0 {
			break
		}
		p, err := db.ApplyPulled(ctx, cluster, project, pg.recs, pg.last, o.Now())
		if err != nil {
			return total, cursor, err
		}
		total.Added += p.Added
		total.Updated += p.Updated
		total.Removed += p.Removed
		total.Skipped += p.Skipped
		cursor = pg.last
		if o.Progress != nil {
			o.Progress(project, "pulled", pg.rows)
		}
	}
	return total, cursor, nil
}

// fetchPage reads and decodes the page of a project after seq cursor.
func fetchPage(ctx context.Context, c *client, o Options, origin, project string, cursor int64) (page, error) {
	// What this machine pushed itself comes back without its body: it is
	// here already, and the cursor still moves past it.
	res, err := c.query(ctx, []stmt{st(`SELECT seq, key, kind, origin, stamp,
		CASE WHEN origin = ? AND kind != 'tombstone' THEN '' ELSE body END
		FROM mem_records WHERE project = ? AND seq > ? ORDER BY seq LIMIT ?`, origin, project, cursor, o.Page)})
	if err != nil {
		return page{}, fmt.Errorf("pulling: %w", err)
	}
	rows := res[0].Values
	recs := make([]store.Incoming, 0, len(rows))
	var lines bytes.Buffer
	var bodies []int // index in recs of each line
	last := cursor
	for _, row := range rows {
		if len(row) != 6 {
			return page{}, fmt.Errorf("pulling: a row of %d columns from the cluster", len(row))
		}
		in := store.Incoming{Seq: asInt(row[0]), Key: asString(row[1]), Origin: asString(row[3]), Stamp: asInt(row[4])}
		last = max(last, in.Seq)
		if !validKey(in.Key) {
			return page{}, fmt.Errorf("pulling: cluster record with key %q (seq %d): %w", in.Key, in.Seq,
				memory.Invalid("key", "session:, observation: or summary: and an id", in.Key))
		}
		kind, body := asString(row[2]), asString(row[5])
		switch {
		case kind == kindTombstone:
			in.Tombstone = true
		case body == "":
			continue // ours
		default:
			if strings.ContainsAny(body, "\n\r") {
				return page{}, fmt.Errorf("pulling: cluster record %s (seq %d) spans several lines", in.Key, in.Seq)
			}
			lines.WriteString(body)
			lines.WriteByte('\n')
			bodies = append(bodies, len(recs))
		}
		recs = append(recs, in)
	}
	// Decoded in parallel, and checked as an import is: the privacy
	// filter, the fields, the kind.
	decoded, err := interchange.Decode(&lines)
	if err == nil && len(decoded) != len(bodies) {
		err = fmt.Errorf("%d records in %d bodies", len(decoded), len(bodies))
	}
	if err != nil {
		return page{}, fmt.Errorf("pulling: records from the cluster after seq %d: %w", cursor, err)
	}
	for i, rec := range decoded {
		in := &recs[bodies[i]]
		if rec.Project() != project || rec.Key() != in.Key {
			return page{}, fmt.Errorf("pulling: cluster record %s (seq %d) is filed under project %s but holds %s of project %s",
				in.Key, in.Seq, project, rec.Key(), rec.Project())
		}
		in.Record = rec
	}
	return page{recs: recs, last: last, rows: len(rows)}, nil
}

func validKey(k string) bool {
	for _, p := range []string{memory.KeySession, memory.KeyObservation, memory.KeySummary} {
		if strings.HasPrefix(k, p) && len(k) > len(p) {
			return true
		}
	}
	return false
}

// ProjectStatus is where one shared project stands.
type ProjectStatus struct {
	store.SyncState
	PendingPull int64 `json:"pending_pull"` // -1: the cluster did not answer
}

// StatusReport is what mem sync --status shows.
type StatusReport struct {
	Cluster   string          `json:"cluster"`
	Reachable bool            `json:"reachable"`
	Problem   string          `json:"problem,omitempty"`
	Projects  []ProjectStatus `json:"projects"`
}

// Status says, per shared project (or the one named), what waits to be
// pushed (from the local file) and pulled (asking the cluster; -1 when it
// does not answer), and when it last synced.
func Status(ctx context.Context, db *store.DB, r Remote, project string) (StatusReport, error) {
	var rep StatusReport
	c, err := newClient(r)
	if err != nil {
		return rep, err
	}
	origin, err := db.MachineID(ctx)
	if err != nil {
		return rep, err
	}
	// The cluster gets half the time left, so the local part is still said.
	ask := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ask, cancel = context.WithTimeout(ctx, time.Until(dl)/2)
		defer cancel()
	}
	info, qerr := readMeta(ask, c)
	if qerr == nil && info.id != "" {
		rep.Cluster, rep.Reachable = info.id, true
	} else {
		if qerr == nil {
			qerr = fmt.Errorf("the cluster has no mem schema yet: mem sync creates it")
		}
		rep.Problem = qerr.Error()
		if rep.Cluster, err = db.SyncMeta(ctx, "cluster"); err != nil {
			return rep, err
		}
	}
	states, err := db.SyncStates(ctx, rep.Cluster, project)
	if err != nil {
		return rep, err
	}
	for _, s := range states {
		ps := ProjectStatus{SyncState: s, PendingPull: -1}
		if rep.Reachable {
			res, err := c.query(ctx, []stmt{st(`SELECT count(*) FROM mem_records WHERE project = ? AND seq > ? AND origin != ?`,
				s.Project, s.Pulled, origin)})
			if err == nil && len(res) == 1 && len(res[0].Values) == 1 && len(res[0].Values[0]) == 1 {
				ps.PendingPull = asInt(res[0].Values[0][0])
			}
		}
		rep.Projects = append(rep.Projects, ps)
	}
	return rep, nil
}
