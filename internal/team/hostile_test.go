package team_test

// What a member who can write to the cluster can and cannot do to others:
// rows written straight into mem_records, as such a member could.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/team"
)

// forge writes one row into the cluster as a member with write access
// could, after every row there.
func (c *cluster) forge(key, kind, proj, body string) {
	c.t.Helper()
	c.execute([]any{`INSERT INTO mem_records (seq, key, kind, project, origin, stamp, body)
		VALUES ((SELECT coalesce(max(seq), 0) + 1 FROM mem_records), ?, ?, ?, 'intruder-0badc0de', ?, ?)`,
		key, kind, proj, time.Now().Add(time.Hour).UnixMilli(), body})
}

// importLines imports JSON Lines into the member's database.
func (m *member) importLines(name string, lines ...string) {
	m.t.Helper()
	f := filepath.Join(m.dir, name+".jsonl")
	if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		m.t.Fatal(err)
	}
	m.run("import", f)
}

// TestTombstoneOfAnotherProjectDeletesNothing: tombstones filed in the
// cluster under a shared project, naming records this machine holds in a
// project it never shared (an observation's uuid, a session id too long to
// carry its project), delete nothing here, and do not turn those records
// into tombstones when that project is shared later.
func TestTombstoneOfAnotherProjectDeletesNothing(t *testing.T) {
	c := startCluster(t, 3, "", "")
	const private = "github.com/acme/private"
	a := newMember(t, "a", c, c.urls(), "")
	a.run("--project", project, "share")
	a.importObservations(project, "s-shared", "shared", 2)
	long := "s-" + strings.Repeat("l", 195) // too long to carry its project in the cluster
	now := time.Now().UTC().Format(time.RFC3339Nano)
	a.importLines("private",
		fmt.Sprintf(`{"kind":"session","id":"s-private","project":%q,"agent":"claude-code","started_at":%q,"status":"active"}`, private, now),
		fmt.Sprintf(`{"kind":"observation","uuid":"private-obs-1","session_id":"s-private","project":%q,"type":"decision","title":"wprivatex1 kept here","created_at":%q}`, private, now),
		fmt.Sprintf(`{"kind":"session","id":%q,"project":%q,"agent":"claude-code","started_at":%q,"status":"active"}`, long, private, now),
		fmt.Sprintf(`{"kind":"observation","uuid":"private-obs-2","session_id":%q,"project":%q,"type":"decision","title":"wprivatex2 kept here","created_at":%q}`, long, private, now),
		fmt.Sprintf(`{"kind":"summary","uuid":"private-sum-2","session_id":%q,"project":%q,"request":"wprivatex3 kept here","created_at":%q}`, long, private, now),
	)
	a.run("sync")

	// Someone with write access files tombstones of a's private records
	// under the shared project.
	c.forge("observation:private-obs-1", "tombstone", project, "")
	c.forge("session:"+long, "tombstone", project, "")
	c.forge("summary:"+long, "tombstone", project, "")
	a.run("sync")

	for _, q := range []string{
		`SELECT count(*) FROM observations WHERE uuid = 'private-obs-1'`,
		`SELECT count(*) FROM observations WHERE uuid = 'private-obs-2'`,
		`SELECT count(*) FROM sessions WHERE project = 'github.com/acme/private'`,
		`SELECT count(*) FROM summaries WHERE uuid = 'private-sum-2'`,
	} {
		want := 1
		if strings.Contains(q, "sessions") {
			want = 2
		}
		if got := a.count(q); got != want {
			t.Errorf("after a sync with forged tombstones: %s = %d, want %d", q, got, want)
		}
	}
	if got := a.count(`SELECT count(*) FROM observations WHERE project = ?`, project); got != 2 {
		t.Errorf("the shared project lost records: %d observations, want 2", got)
	}

	if got := a.count(`SELECT count(*) FROM sync_tombstones`); got != 0 {
		t.Errorf("a keeps %d tombstones of records it never had in the shared project", got)
	}

	// The intruder removes its rows, and a shares the private project after
	// all: its records reach the cluster as records, not as the tombstones
	// filed under the other one.
	c.execute([]any{`DELETE FROM mem_records WHERE origin = 'intruder-0badc0de'`})
	a.run("--project", private, "share")
	a.run("sync")
	if rows := c.query(`SELECT kind FROM mem_records WHERE project = ? ORDER BY key`, private); len(rows) != 5 {
		t.Errorf("cluster rows of the newly shared project: %v, want 5 records", rows)
	} else {
		for _, r := range rows {
			if r[0] == "tombstone" {
				t.Errorf("cluster rows of the newly shared project: %v, want no tombstone", rows)
				break
			}
		}
	}
	if got := a.count(`SELECT count(*) FROM observations WHERE project = ?`, private); got != 2 {
		t.Errorf("after sharing the private project: %d of its observations here, want 2", got)
	}
}

// TestBadRowsAreQuarantined: rows no mem writes (a record of another
// project, a body that is not JSON, a 48 MiB record, a key mem does not
// know, a summary or an observation whose session is nowhere, a line break
// in a body, a summary whose uuid is another's) are set aside, counted and
// skipped; the pull goes on past them, gets the good records after them,
// and never reads them again.
func TestBadRowsAreQuarantined(t *testing.T) {
	c := startCluster(t, 3, "", "")
	a := newMember(t, "a", c, c.urls(), "")
	b := newMember(t, "b", c, c.urls(c.nodes[1]), "")
	for _, m := range []*member{a, b} {
		m.run("--project", project, "share")
	}
	b.importObservations(project, "s-before", "before", 3)
	b.importObservations(project, "s-before2", "beforetwo", 3)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	b.importLines("summary", fmt.Sprintf(`{"kind":"summary","uuid":"sum-before","session_id":"s-before","project":%q,"request":"wsumx","created_at":%q}`, project, now))
	b.run("sync")
	obs := func(uuid, session, proj string) string {
		return fmt.Sprintf(`{"kind":"observation","uuid":%q,"session_id":%q,"project":%q,"type":"decision","title":"forged %s","created_at":%q}`,
			uuid, session, proj, uuid, now)
	}
	c.forge("observation:forged-1", "observation", project, obs("forged-1", "s-before", "github.com/acme/other"))
	c.forge("observation:junk-1", "observation", project, "this is not JSON")
	// 48 MiB made by the cluster itself, so that this test's process stays
	// small: a child's peak memory counts its parent's at the fork.
	c.execute([]any{`INSERT INTO mem_records (seq, key, kind, project, origin, stamp, body)
		VALUES ((SELECT max(seq) + 1 FROM mem_records), 'observation:huge-1', 'observation', ?, 'intruder-0badc0de', 1, hex(zeroblob(24 << 20)))`, project})
	c.forge("nonsense", "observation", project, obs("nonsense", "s-before", project))
	c.forge("summary:ghost", "summary", project,
		fmt.Sprintf(`{"kind":"summary","uuid":"ghost-sum","session_id":"ghost","project":%q,"request":"wghostx","created_at":%q}`, project, now))
	c.forge("observation:orphan-1", "observation", project, obs("orphan-1", "no-such-session", project))
	c.forge("observation:lines-1", "observation", project, obs("lines-1", "s-before", project)+"\n"+obs("lines-2", "s-before", project))
	// A summary that passes every check but cannot be written here (its
	// uuid is another summary's): the page is applied row by row.
	named := memory.TeamSessionID("s-before2", project)
	c.forge("summary:"+named, "summary", project,
		fmt.Sprintf(`{"kind":"summary","uuid":"sum-before","session_id":%q,"project":%q,"request":"wdupx","created_at":%q}`, named, project, now))
	const bad = 8
	b.importObservations(project, "s-after", "after", 3)
	b.run("sync")

	cmd := exec.Command(memBin, "sync")
	cmd.Env, cmd.Dir = a.env, a.dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("mem sync with bad rows in the cluster: %v\n%s%s", err, out.String(), errOut.String())
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	t.Logf("a sync past a 48 MiB row and %d others: %s, max RSS %d MiB; stderr:\n%s", bad-1, took, rss>>10, errOut.String())
	if rss > 100<<10 {
		t.Errorf("a sync past a 48 MiB row held %d MiB at its peak, want under 100", rss>>10)
	}
	if got := a.count(`SELECT count(*) FROM observations WHERE project = ?`, project); got != 9 {
		t.Errorf("a has %d observations after the sync, want b's 9", got)
	}
	if got := a.count(`SELECT count(*) FROM summaries WHERE request = 'wsumx'`); got != 1 {
		t.Errorf("a has %d of b's summary, want 1", got)
	}
	if got := a.count(`SELECT count(*) FROM observations WHERE title LIKE 'forged%' OR uuid = 'huge-1'`); got != 0 {
		t.Errorf("a took %d of the bad rows in", got)
	}
	if !strings.Contains(out.String(), fmt.Sprintf("%d quarantined", bad)) {
		t.Errorf("mem sync does not say it set %d rows aside:\n%s", bad, out.String())
	}
	if n := strings.Count(errOut.String(), "quarantined"); n != bad {
		t.Errorf("mem sync logged %d quarantined rows, want %d:\n%s", n, bad, errOut.String())
	}
	maxSeq := c.count(`SELECT max(seq) FROM mem_records`)
	status := func() team.ProjectStatus {
		t.Helper()
		var st team.StatusReport
		if err := json.Unmarshal([]byte(a.run("sync", "--status", "--json")), &st); err != nil || len(st.Projects) != 1 {
			t.Fatalf("mem sync --status --json: %v %+v", err, st)
		}
		return st.Projects[0]
	}
	if st := status(); st.Quarantined != bad || st.Pulled != int64(maxSeq) || st.PendingPull != 0 {
		t.Errorf("status after the sync: %d quarantined, cursor %d, %d to pull; want %d, %d, 0", st.Quarantined, st.Pulled, st.PendingPull, bad, maxSeq)
	}
	if text := a.run("sync", "--status"); !strings.Contains(text, fmt.Sprintf("%d quarantined", bad)) {
		t.Errorf("mem sync --status does not count the quarantined rows:\n%s", text)
	}
	// A second sync reads none of them again.
	if o, e, code := a.try("", "sync"); code != 0 || strings.Contains(e, "quarantined") {
		t.Errorf("second sync: exit %d, stderr %q\n%s", code, e, o)
	}
	if st := status(); st.Quarantined != bad {
		t.Errorf("after a second sync: %d quarantined, want %d", st.Quarantined, bad)
	}
}

// TestSyncGoesOnAfterAProjectFails: one shared project's push fails in the
// cluster (a member with write access made it refuse that project's rows);
// mem sync still syncs the other project, then exits 1 naming the one that
// failed.
func TestSyncGoesOnAfterAProjectFails(t *testing.T) {
	c := startCluster(t, 3, "", "")
	const broken = "github.com/acme/aaa-broken" // synced first
	a := newMember(t, "a", c, c.urls(), "")
	for _, p := range []string{broken, project} {
		a.run("--project", p, "share")
	}
	a.run("sync") // the schema
	c.execute([]any{`CREATE TRIGGER refuse BEFORE INSERT ON mem_records WHEN new.project = '` + broken + `'
		BEGIN SELECT RAISE(ABORT, 'refused by the intruder'); END`})
	a.importObservations(broken, "s-broken", "broken", 2)
	a.importObservations(project, "s-fine", "fine", 2)
	out, errOut, code := a.try("", "sync")
	if code != 1 {
		t.Errorf("mem sync with one project failing: exit %d, want 1\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, broken) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("mem sync with one project failing: want one line naming %s, got %q", broken, errOut)
	}
	if got := c.count(`SELECT count(*) FROM mem_records WHERE project = ? AND kind = 'observation'`, project); got != 2 {
		t.Errorf("the other project: %d observations in the cluster, want 2", got)
	}
}

// authSeen notes the Authorization header of every request it passes on.
type authSeen struct {
	next http.Handler
	mu   sync.Mutex
	seen []string
}

func (a *authSeen) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.seen = append(a.seen, r.Header.Get("Authorization"))
	a.mu.Unlock()
	a.next.ServeHTTP(w, r)
}

func (a *authSeen) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.seen)
}

// TestNoPasswordAcrossARedirect: a node that answers 307 to another port
// (a proxy there forwards to the real cluster and notes what it gets)
// never receives the password: mem does not follow it, and says so.
func TestNoPasswordAcrossARedirect(t *testing.T) {
	c := startCluster(t, 3, "alice", "redirect-horse-7731")
	target, _ := url.Parse("http://" + c.nodes[0].http)
	seen := &authSeen{next: httputil.NewSingleHostReverseProxy(target)}
	other := httptest.NewServer(seen)
	defer other.Close()
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer node.Close()

	a := newMember(t, "a", c, c.urls(), "redirect-horse-7731")
	a.runIn("redirect-horse-7731\n", "remote", "set", node.URL, "--user", "alice", "--password-stdin")
	a.run("--project", project, "share")
	a.importObservations(project, "s-a", "a", 2)
	out, errOut, code := a.try("", "sync", "--deadline", "10s")
	if got := seen.list(); len(got) > 0 {
		t.Errorf("the other port got %d requests, with Authorization %q", len(got), got)
	}
	if code != 1 || !strings.Contains(errOut, "redirected to "+other.URL) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("mem sync against a node that redirects: exit %d, want 1 and one line naming %s:\n%s%s", code, other.URL, out, errOut)
	}
	if strings.Contains(out+errOut, "redirect-horse-7731") {
		t.Errorf("the password was printed:\n%s%s", out, errOut)
	}
}

// TestWhatLeavesIsFilteredAtPush: records an older mem stored with a
// secret in them go to the cluster with the secret redacted, by today's
// filter, at push time; the host name and the sessions' folders stay home
// unless sync.share_machine says otherwise.
func TestWhatLeavesIsFilteredAtPush(t *testing.T) {
	const token = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Skipf("no usable host name here (%q, %v)", host, err)
	}
	c := startCluster(t, 3, "", "")
	now := time.Now().UTC().Format(time.RFC3339Nano)
	session := func(id, proj string) string {
		return fmt.Sprintf(`{"kind":"session","id":%q,"project":%q,"agent":"claude-code","cwd":"/home/alice/src/shop-%s","started_at":%q,"status":"active"}`,
			id, proj, id, now)
	}
	const other = "github.com/acme/shared-host"
	a := newMember(t, "a", c, c.urls(), "")
	a.run("--project", project, "share")
	a.importLines("old", session("s-old", project),
		fmt.Sprintf(`{"kind":"observation","uuid":"old-secret-1","session_id":"s-old","project":%q,"type":"decision","title":"rotated the deploy token","narrative":"set in CI","created_at":%q}`, project, now),
		fmt.Sprintf(`{"kind":"observation","uuid":"old-secret-2","session_id":"s-old","project":%q,"type":"decision","title":"the token","created_at":%q}`, project, now))
	// What an older mem, whose filter let this kind of token through, stored.
	db := a.open()
	if _, err := db.SQL().Exec(`UPDATE observations SET narrative = 'export GITHUB_TOKEN=` + token + `' WHERE uuid = 'old-secret-1'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`UPDATE sessions SET last_message = 'used ` + token + `' WHERE id = 's-old'`); err != nil {
		t.Fatal(err)
	}
	// A title that is private whole: nothing of it may go.
	if _, err := db.SQL().Exec(`UPDATE observations SET title = '<private>the merger with Initech</private>' WHERE uuid = 'old-secret-2'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	out, errOut, code := a.try("", "sync")
	if code != 0 || !strings.Contains(out, "pushed 2 (1 withheld)") || !strings.Contains(errOut, "observation:old-secret-2 not pushed: title") {
		t.Errorf("mem sync with a record that cannot go: exit %d, want 0, the record withheld and said:\n%s%s", code, out, errOut)
	}
	if got := c.count(`SELECT count(*) FROM mem_records WHERE key = 'observation:old-secret-2' OR body LIKE '%Initech%'`); got != 0 {
		t.Errorf("the record whose title is private reached the cluster")
	}
	if got := c.count(`SELECT count(*) FROM mem_records WHERE body LIKE ?`, "%"+token+"%"); got != 0 {
		t.Errorf("%d rows in the cluster hold the token", got)
	}
	if got := c.count(`SELECT count(*) FROM mem_records WHERE key = 'observation:old-secret-1' AND body LIKE '%GITHUB_TOKEN=[REDACTED]%'`); got != 1 {
		t.Errorf("the observation did not reach the cluster redacted: %v", c.query(`SELECT body FROM mem_records WHERE key = 'observation:old-secret-1'`))
	}
	if got := c.count(`SELECT count(*) FROM mem_records WHERE origin LIKE ? OR body LIKE '%/home/alice%'`, host+"-%"); got != 0 {
		t.Errorf("%d rows in the cluster name this machine or a session's folder: %v", got, c.query(`SELECT origin, body FROM mem_records`))
	}

	// A member who says so sends both.
	b := newMember(t, "b", c, c.urls(), "")
	b.setConfig("[sync]\nshare_machine = true\n")
	b.run("--project", other, "share")
	b.importLines("b", session("s-b", other))
	b.run("sync")
	if got := c.count(`SELECT count(*) FROM mem_records WHERE project = ? AND origin LIKE ? AND body LIKE '%/home/alice/src/shop-s-b%'`, other, host+"-%"); got != 1 {
		t.Errorf("with sync.share_machine the host name and folder do not travel: %v", c.query(`SELECT origin, body FROM mem_records WHERE project = ?`, other))
	}
}

// TestOversizeAnswerIsNotReadWhole: a node that answers with an endless
// body is cut off once the answer passes what mem reads, and the sync
// fails with one line saying so, without holding the answer.
func TestOversizeAnswerIsNotReadWhole(t *testing.T) {
	c := &cluster{t: t} // no cluster: the node is this test's
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for range 512 { // 512 MiB, if mem reads on
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer node.Close()
	a := newMember(t, "a", c, node.URL, "")
	a.run("--project", project, "share")
	cmd := exec.Command(memBin, "sync", "--deadline", "1m")
	cmd.Env, cmd.Dir = a.env, a.dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	t.Logf("mem sync against a node sending 512 MiB: %v in %s, max RSS %d MiB: %s", err, time.Since(start), rss>>10, errOut.String())
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errOut.String(), "bytes mem reads") || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("want exit 1 and one line about the answer's size, got exit %d:\n%s%s", cmd.ProcessState.ExitCode(), out.String(), errOut.String())
	}
	if rss > 100<<10 {
		t.Errorf("mem held %d MiB at its peak, want under 100", rss>>10)
	}
}

// TestNoPasswordThroughAPlainProxy: with HTTP_PROXY set, a node reached
// over plain http is reached directly: the proxy would read the password
// (a proxy of https only relays the encrypted stream).
func TestNoPasswordThroughAPlainProxy(t *testing.T) {
	ip := outerIPv4(t)
	c := startCluster(t, 1, "alice", "proxy-horse-5521")
	// The node as seen at a non-loopback address (Go never proxies loopback).
	target, _ := url.Parse("http://" + c.nodes[0].http)
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	front := &http.Server{Handler: httputil.NewSingleHostReverseProxy(target)}
	go front.Serve(ln)
	defer front.Close()
	seen := &authSeen{next: &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.Out.URL = r.In.URL }}}
	proxy := httptest.NewServer(seen)
	defer proxy.Close()

	a := newMember(t, "a", c, "http://"+ln.Addr().String(), "proxy-horse-5521")
	a.env = append(a.env, "HTTP_PROXY="+proxy.URL, "http_proxy="+proxy.URL, "NO_PROXY=", "no_proxy=")
	a.run("--project", project, "share")
	a.importObservations(project, "s-a", "a", 2)
	a.run("sync")
	if got := seen.list(); len(got) > 0 {
		t.Errorf("the proxy got %d requests, with Authorization %q", len(got), got)
	}
	if got := c.count(`SELECT count(*) FROM mem_records WHERE kind = 'observation'`); got != 2 {
		t.Errorf("the sync did not reach the node directly: %d observations in the cluster", got)
	}
}

// outerIPv4 is an IPv4 address of this machine that is not loopback, or
// skips the test.
func outerIPv4(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
				return n.IP.String()
			}
		}
	}
	t.Skip("SKIPPED: no IPv4 address here but loopback")
	return ""
}
