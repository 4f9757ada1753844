// Package team moves a machine's memory to and from a team's rqlite
// cluster: push what this file has that the cluster lacks, pull what it
// lacks, for the projects shared with the team. See README.md.
package team

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
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
	// Warn, when set, hears of every row a pull set aside and every record
	// a push withheld (one line each).
	Warn func(line string)
	// ShareMachine sends the host name (in the origin) and the sessions'
	// working folders; without it, neither leaves the machine.
	ShareMachine bool
	// Review is what a pull holds for mem review (Review*; "" is
	// ReviewFlagged).
	Review string
}

// ProjectResult is what a sync did for one project; Error says why it
// stopped, when it did (the other projects went on).
type ProjectResult struct {
	Project string `json:"project"`
	Pushed  int    `json:"pushed"`
	// Withheld counts the records a push kept back (see outgoing).
	Withheld int          `json:"withheld"`
	Pulled   store.Pulled `json:"pulled"`
	Cursor   int64        `json:"cursor"`
	Error    string       `json:"error,omitempty"`
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
// page together with its cursor. A project that fails does not stop the
// others, unless the failure is the cluster's or the deadline's (no other
// project would do better): the error names every project that failed.
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
	origin, err := memberName(ctx, db, o.ShareMachine)
	if err != nil {
		return Result{}, err
	}
	if err := db.SetSyncMeta(ctx, "cluster", cluster); err != nil {
		return Result{}, err
	}
	res := Result{Cluster: cluster, Origin: origin}
	var failed []error
	for _, p := range projects {
		pr := ProjectResult{Project: p}
		st, err := db.BeginSync(ctx, cluster, p)
		if err == nil && !o.PullOnly {
			pr.Pushed, pr.Withheld, err = push(ctx, c, db, o, info, origin, p, st.Pushed)
		}
		if err == nil && !o.PushOnly {
			pr.Pulled, pr.Cursor, err = pull(ctx, c, db, o, cluster, origin, p, st.Pulled)
			if pr.Pulled.Quarantined > 0 && o.Warn != nil {
				warnQuarantined(ctx, db, o.Warn, cluster, p, st.Pulled, pr.Pulled.Quarantined)
			}
		}
		if err != nil {
			err = fmt.Errorf("syncing project %s: %w", p, err)
			pr.Error = err.Error()
			failed = append(failed, err)
		}
		res.Projects = append(res.Projects, pr)
		if err != nil && everyProject(ctx, err) {
			break
		}
	}
	return res, errors.Join(failed...)
}

// warnQuarantined tells of the rows of project a pull set aside after seq
// from: the first few, then how many more.
func warnQuarantined(ctx context.Context, db *store.DB, warn func(string), cluster, project string, from int64, n int) {
	const shown = 20
	rows, err := db.Quarantine(ctx, cluster, project, from, shown)
	if err != nil {
		warn(fmt.Sprintf("project %s: %d rows of the cluster quarantined (%v)", project, n, err))
		return
	}
	for _, r := range rows {
		warn(fmt.Sprintf("project %s: row %d of the cluster (key %q) quarantined: %s", project, r.Seq, r.Key, r.Reason))
	}
	if n > len(rows) {
		warn(fmt.Sprintf("project %s: %d more rows of the cluster quarantined (mem sync --status counts them)", project, n-len(rows)))
	}
}

// everyProject reports whether a project's failure would be every other
// project's too: the deadline passed, the cluster refused the password,
// is newer than this mem, or no node answered.
func everyProject(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, ErrAuth) || errors.Is(err, ErrNewerSchema) || errors.Is(err, ErrUnreachable)
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

// push sends a project's changes after mark; it returns how many records
// went and how many were withheld (outgoing).
func push(ctx context.Context, c *client, db *store.DB, o Options, info clusterInfo, origin, project string, mark int64) (int, int, error) {
	total, withheld := 0, 0
	write := upsert(info.uuidColumn)
	var buf bytes.Buffer
	enc := interchange.NewEncoder(&buf) // flushed into buf for each record
	for {
		out, last, err := db.Outbox(ctx, project, mark, o.Batch)
		if err != nil {
			return total, withheld, err
		}
		if last == mark {
			return total, withheld, nil
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
				rec, err := outgoing(*r.Record, o)
				if err == nil {
					rec = rec.WithSessionIDs(func(id string) string { return memory.TeamSessionID(id, project) })
					buf.Reset()
					if err = enc.Encode(rec); err == nil {
						err = enc.Flush()
					}
				}
				if err == nil && buf.Len() > MaxRecord {
					err = fmt.Errorf("%d bytes, more than the %d a member reads", buf.Len(), MaxRecord)
				}
				if err != nil {
					withheld++
					if o.Warn != nil {
						o.Warn(fmt.Sprintf("project %s: %s not pushed: %v", project, r.Key, err))
					}
					continue
				}
				key, kind, body = rec.Key(), rec.Kind, strings.TrimSuffix(buf.String(), "\n")
			}
			stmts = append(stmts, st(write, upsertArgs(key, kind, project, from, r.Stamp, body)...))
			total++
		}
		if len(stmts) > 0 {
			if _, err := c.execute(ctx, true, stmts); err != nil {
				return total, withheld, fmt.Errorf("pushing: %w", err)
			}
		}
		if err := db.MarkPushed(ctx, info.id, project, last, o.Now()); err != nil {
			return total, withheld, err
		}
		mark = last
		if o.Progress != nil {
			o.Progress(project, "pushed", len(out))
		}
	}
}

// outgoing is what of a record leaves the machine: the record passed
// through today's privacy filter and checks (interchange.Check, as a
// record a pull brings: text an older mem stored before the filter knew a
// kind of secret goes out filtered), without the session's working folder
// unless ShareMachine. A record that fails the checks is withheld (an
// error). This is the one place a push filters what it sends: a check
// added to what leaves (an instruction check) goes here.
func outgoing(r memory.Record, o Options) (memory.Record, error) {
	switch {
	case r.Session != nil:
		s := *r.Session
		s.FilesRead = slices.Clone(s.FilesRead)
		if !o.ShareMachine {
			s.Cwd = ""
		}
		r.Session = &s
	case r.Observation != nil:
		obs := *r.Observation
		r.Observation = &obs
	case r.Summary != nil:
		sum := *r.Summary
		r.Summary = &sum
	}
	return r, interchange.Check(&r)
}

// memberName is the origin this machine's records carry in the cluster:
// its machine id (the host name and a random suffix) with ShareMachine,
// else "member-" and the suffix alone.
func memberName(ctx context.Context, db *store.DB, share bool) (string, error) {
	id, err := db.MachineID(ctx)
	if err != nil || share {
		return id, err
	}
	return "member-" + id[strings.LastIndex(id, "-")+1:], nil
}

// page is one page of a pull: its rows (those that are no record carry
// their Problem), the seq it ends at, and whether the cluster may have
// more after it.
type page struct {
	recs []store.Incoming
	last int64
	more bool
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
			if err != nil || !pg.more {
				return
			}
			from = pg.last
		}
	}()
	for pg := range pages {
		if pg.err != nil {
			return total, cursor, pg.err
		}
		if pg.last == cursor {
			break
		}
		p, err := apply(ctx, db, o, cluster, project, pg)
		if err != nil {
			return total, cursor, err
		}
		total.Add(p)
		cursor = pg.last
		if o.Progress != nil {
			o.Progress(project, "pulled", len(pg.recs))
		}
	}
	return total, cursor, nil
}

// apply writes a page here with its cursor. When the page as a whole is
// refused for what it holds, its rows are applied one at a time, and a row
// refused alone is quarantined with the reason: no row stops a pull. A
// failure of this machine (the deadline, a database locked too long, a
// quarantine that cannot be written either) stops it.
func apply(ctx context.Context, db *store.DB, o Options, cluster, project string, pg page) (store.Pulled, error) {
	p, err := db.ApplyPulled(ctx, cluster, project, pg.recs, pg.last, o.Now())
	if err == nil || local(ctx, err) || len(pg.recs) < 2 && (len(pg.recs) == 0 || pg.recs[0].Problem != "") {
		return p, err
	}
	var total store.Pulled
	for _, r := range pg.recs {
		p, err := db.ApplyPulled(ctx, cluster, project, []store.Incoming{r}, r.Seq, o.Now())
		if err != nil && !local(ctx, err) {
			bad := store.Incoming{Seq: r.Seq, Key: r.Key, Problem: reason(err)}
			p, err = db.ApplyPulled(ctx, cluster, project, []store.Incoming{bad}, r.Seq, o.Now())
		}
		if err != nil {
			return total, err
		}
		total.Add(p)
	}
	p, err = db.ApplyPulled(ctx, cluster, project, nil, pg.last, o.Now())
	total.Add(p)
	return total, err
}

// local reports whether an error is this machine's, not the row's.
func local(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, store.ErrBusy)
}

// reason is an error as a quarantined row's reason: one line, bounded.
func reason(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 300 {
		s = strings.ToValidUTF8(s[:300], "") + "..."
	}
	return s
}

// Bounds on what a pull reads of one row and of one page. No record mem
// pushes is larger than MaxRecord (push withholds it); a row beyond any
// bound is quarantined by its size, which the cluster measures: its text
// never leaves the cluster. A page holds rows until their text passes
// pageBytes (at least one row), so an answer is bounded before it is read
// (client.limit).
const (
	MaxRecord = 1 << 20
	maxKey    = 1024
	maxOrigin = 1024
	maxKind   = 16
	pageBytes = 16 << 20
)

// pageQuery reads a project's rows after a seq: the row's size first
// (octet_length), its text only within the bounds, and a page cut where
// the text read so far passes pageBytes. got is how many rows the cluster
// had up to the page's limit: fewer means the project's last page. What
// this machine pushed itself comes back without its body: it is here
// already, and the cursor still moves past it. A seq that is not an
// integer (no mem writes one) is not read.
const pageQuery = `SELECT p.seq, p.kind, p.stamp, p.nk, p.no, p.nb, p.mine, p.got,
	CASE WHEN p.nk <= ? THEN r.key ELSE '' END,
	CASE WHEN p.no <= ? THEN r.origin ELSE '' END,
	CASE WHEN p.mine OR p.nb > ? THEN '' ELSE r.body END
FROM (SELECT seq, kind, stamp, nk, no, nb, mine, count(*) OVER () AS got,
		coalesce(sum(min(nk, ?) + min(no, ?) + CASE WHEN mine OR nb > ? THEN 0 ELSE nb END)
			OVER (ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
	FROM (SELECT seq, CASE WHEN octet_length(kind) <= ? THEN kind ELSE '' END AS kind,
			CASE WHEN typeof(stamp) = 'integer' THEN stamp ELSE 0 END AS stamp,
			octet_length(key) AS nk, octet_length(origin) AS no, octet_length(body) AS nb,
			origin = ? AND kind != 'tombstone' AS mine
		FROM mem_records WHERE project = ? AND seq > ? AND typeof(seq) = 'integer' ORDER BY seq LIMIT ?)) p
JOIN mem_records r ON r.seq = p.seq
WHERE p.before <= ? ORDER BY p.seq`

// fetchPage reads and decodes the page of a project after seq cursor. A
// row that is no record of the project (too large, not JSON, a key mem
// does not write, a record of another project or under another key) comes
// back with its Problem, for ApplyPulled to quarantine.
func fetchPage(ctx context.Context, c *client, o Options, origin, project string, cursor int64) (page, error) {
	res, err := c.queryLimit(ctx, pageAnswer(o.Page), []stmt{st(pageQuery, maxKey, maxOrigin, MaxRecord,
		maxKey, maxOrigin, MaxRecord, maxKind, origin, project, cursor, o.Page, pageBytes)})
	if err != nil {
		return page{}, fmt.Errorf("pulling: %w", err)
	}
	rows := res[0].Values
	pg := page{last: cursor, recs: make([]store.Incoming, 0, len(rows))}
	var bodies []string
	var at []int // index in pg.recs of each body
	for _, row := range rows {
		if len(row) != 11 {
			return page{}, fmt.Errorf("pulling: a row of %d columns from the cluster", len(row))
		}
		in := store.Incoming{Seq: asInt(row[0]), Key: asString(row[8]), Origin: asString(row[9]), Stamp: asInt(row[2])}
		kind, nk, no, nb, mine, got := asString(row[1]), asInt(row[3]), asInt(row[4]), asInt(row[5]), asInt(row[6]) != 0, asInt(row[7])
		body := asString(row[10])
		pg.last = max(pg.last, in.Seq)
		pg.more = got >= int64(o.Page) || len(rows) < int(got)
		switch {
		case nk > maxKey:
			in.Problem = fmt.Sprintf("a key of %d bytes (at most %d)", nk, maxKey)
		case !validKey(in.Key):
			in.Problem = fmt.Sprintf("key %q: not session:, observation: or summary: and an id", in.Key)
		case no > maxOrigin:
			in.Problem = fmt.Sprintf("an origin of %d bytes (at most %d)", no, maxOrigin)
		case kind == kindTombstone:
			in.Tombstone = true
		case mine:
			continue // ours
		case nb > MaxRecord:
			in.Problem = fmt.Sprintf("a record of %d bytes (at most %d)", nb, MaxRecord)
		case !slices.Contains([]string{memory.KindSession, memory.KindObservation, memory.KindSummary}, kind):
			in.Problem = fmt.Sprintf("kind %q: not session, observation, summary or tombstone", kind)
		case strings.ContainsAny(body, "\n\r"):
			in.Problem = "a record that spans several lines"
		default:
			bodies = append(bodies, body)
			at = append(at, len(pg.recs))
		}
		pg.recs = append(pg.recs, in)
	}
	// Decoded in parallel, and checked as an import is: the privacy
	// filter, the fields, the kind.
	for i, d := range decodeAll(bodies) {
		in := &pg.recs[at[i]]
		switch {
		case d.err != nil:
			in.Problem = "not a record: " + reason(d.err)
		case d.rec.Project() != project:
			in.Problem = fmt.Sprintf("filed under project %s but holds a record of project %q", project, d.rec.Project())
		case d.rec.Key() != in.Key:
			in.Problem = fmt.Sprintf("filed under key %s but holds %q", in.Key, d.rec.Key())
		default:
			in.Record = d.rec
			hold(in, o.Review)
		}
	}
	return pg, nil
}

// [sync] review: what a pull holds for a person's review (mem review).
const (
	ReviewOff     = "off"     // what the instruction check flags is set aside (quarantined), never stored
	ReviewFlagged = "flagged" // what the check flags is stored held back, until released
	ReviewAll     = "all"     // every pulled observation and summary is held until released
)

// ValidReview reports whether v is a [sync] review value.
func ValidReview(v string) bool {
	return v == "" || v == ReviewOff || v == ReviewFlagged || v == ReviewAll
}

// hold applies [sync] review to a decoded pulled record, which the import
// checks have flagged already where its text is instruction-shaped.
func hold(in *store.Incoming, mode string) {
	var r *memory.Review
	switch {
	case in.Record.Observation != nil:
		r = &in.Record.Observation.Review
	case in.Record.Summary != nil:
		r = &in.Record.Summary.Review
	default:
		return
	}
	switch {
	case mode == ReviewOff && r.Flag != "":
		in.Problem = "flagged by the instruction check (" + r.Flag + "), set aside: sync.review is off"
		in.Record = memory.Record{}
	case mode == ReviewAll && r.Flag == "":
		*r = memory.Review{Flag: "team-review", Span: "pulled from " + in.Origin}
	}
}

// pageAnswer bounds the answer to a page of n rows: pageBytes of text
// (and one row past it), each byte possibly escaped in JSON (at most six
// bytes, \u003c), and each row's kind, numbers and punctuation.
func pageAnswer(n int) int64 {
	return 6*int64(pageBytes+MaxRecord+maxKey+maxOrigin) + int64(n)*(6*maxKind+256)
}

type decodedLine struct {
	rec memory.Record
	err error
}

// decodeAll decodes each body on its own (a bad one is that row's
// problem), spread over the processors.
func decodeAll(bodies []string) []decodedLine {
	out := make([]decodedLine, len(bodies))
	workers := min(runtime.GOMAXPROCS(0), len(bodies))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(bodies); i += workers {
				out[i].rec, out[i].err = interchange.DecodeLine([]byte(bodies[i]))
			}
		}()
	}
	wg.Wait()
	return out
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
	Cluster   string `json:"cluster"`
	Reachable bool   `json:"reachable"` // the cluster answered a read
	Problem   string `json:"problem,omitempty"`
	// Nodes is what each node said of itself; NodesUp counts those that
	// answered.
	Nodes    []NodeStatus    `json:"nodes"`
	NodesUp  int             `json:"nodes_up"`
	Projects []ProjectStatus `json:"projects"`
}

// nodeWait bounds how long Status waits for each node's own status.
const nodeWait = 2 * time.Second

// Status says, per shared project (or the one named), what waits to be
// pushed (from the local file) and pulled (asking the cluster; -1 when it
// does not answer), and when it last synced.
func Status(ctx context.Context, db *store.DB, r Remote, project string, shareMachine bool) (StatusReport, error) {
	var rep StatusReport
	c, err := newClient(r)
	if err != nil {
		return rep, err
	}
	origin, err := memberName(ctx, db, shareMachine)
	if err != nil {
		return rep, err
	}
	// Each node is asked at once, briefly, so a node down is named.
	wait := nodeWait
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)/2)
	}
	rep.Nodes = c.nodes(ctx, wait)
	for _, n := range rep.Nodes {
		if n.Up {
			rep.NodesUp++
		}
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
