package team_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/team"
)

const project = "github.com/acme/shop"

// checkMember checks that a member holds every observation of the project
// exactly once, and that each is found by full-text search.
func checkMember(t *testing.T, m *member, want int, tags []string) {
	t.Helper()
	if got := m.count(`SELECT count(*) FROM observations WHERE project = ?`, project); got != want {
		t.Errorf("%s: %d observations, want %d", m.name, got, want)
	}
	if got := m.count(`SELECT count(DISTINCT uuid) FROM observations WHERE project = ?`, project); got != want {
		t.Errorf("%s: %d distinct uuids, want %d", m.name, got, want)
	}
	if got := m.count(`SELECT count(*) FROM observations_fts WHERE observations_fts MATCH 'toolchain'`); got != want {
		t.Errorf("%s: %d observations found by search, want %d", m.name, got, want)
	}
	for _, tag := range tags {
		out := m.run("search", "--project", project, "w"+tag+"x0")
		if !strings.Contains(out, "w"+tag+"x0") {
			t.Errorf("%s: mem search w%sx0 finds nothing:\n%s", m.name, tag, out)
		}
	}
}

// TestMembersWriteAndSyncAtOnce: two, then sixteen members (separate
// databases, separate processes) write and sync at the same time; in the
// end each has every record exactly once, searchable.
func TestMembersWriteAndSyncAtOnce(t *testing.T) {
	c := startCluster(t, 3, "", "")
	for _, n := range []int{2, 16} {
		t.Run(fmt.Sprintf("%d members", n), func(t *testing.T) {
			proj := fmt.Sprintf("%s-%d", project, n)
			const rounds, per = 3, 20
			members := make([]*member, n)
			for i := range members {
				// Each member lists the nodes starting from a different one.
				members[i] = newMember(t, fmt.Sprintf("m%d", i), c, c.urls(c.nodes[i%3]), "")
				members[i].run("--project", proj, "share")
			}
			var wg sync.WaitGroup
			for i, m := range members {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := 0; r < rounds; r++ {
						m.importObservations(proj, fmt.Sprintf("s%d-%d-%d", n, i, r), fmt.Sprintf("%d%d", n, i), per)
						m.run("sync")
					}
				}()
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			for _, m := range members {
				wg.Add(1)
				go func() { defer wg.Done(); m.run("sync") }()
			}
			wg.Wait()
			want := n * rounds * per
			if got := c.count(`SELECT count(*) FROM mem_records WHERE project = ? AND kind = 'observation'`, proj); got != want {
				t.Errorf("cluster: %d observations, want %d", got, want)
			}
			for _, m := range members {
				if got := m.count(`SELECT count(*) FROM observations WHERE project = ?`, proj); got != want {
					t.Errorf("%s: %d observations, want %d", m.name, got, want)
				}
				if got := m.count(`SELECT count(DISTINCT uuid) FROM observations WHERE project = ?`, proj); got != want {
					t.Errorf("%s: %d distinct uuids, want %d", m.name, got, want)
				}
				if got := m.count(`SELECT count(*) FROM observations_fts WHERE observations_fts MATCH 'toolchain'`); got != want {
					t.Errorf("%s: %d found by search, want %d", m.name, got, want)
				}
				if got := m.count(`SELECT count(*) FROM sessions WHERE project = ?`, proj); got != n*rounds {
					t.Errorf("%s: %d sessions, want %d", m.name, got, n*rounds)
				}
				// A word of another member's record is found with mem search.
				other := fmt.Sprintf("w%d%dx7", n, (len(m.name)+3)%n)
				if out := m.run("search", "--project", proj, other); !strings.Contains(out, other) {
					t.Errorf("%s: mem search %s finds nothing:\n%s", m.name, other, out)
				}
				// Syncing again moves nothing.
				out := m.run("sync", "--json")
				var res team.Result
				if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Projects) != 1 {
					t.Fatalf("%s: mem sync --json: %v: %s", m.name, err, out)
				}
				if p := res.Projects[0]; p.Pushed != 0 || p.Pulled != (store.Pulled{}) {
					t.Errorf("%s: a second sync moved records: %+v", m.name, p)
				}
			}
		})
	}
}

// TestLeaderKilledMidPushFollowerStoppedMidPull: the leader is killed with
// SIGKILL while a member pushes, and the node another member reads from is
// stopped while it pulls; both syncs go on through the other nodes, and
// nothing is lost or doubled.
func TestLeaderKilledMidPushFollowerStoppedMidPull(t *testing.T) {
	c := startCluster(t, 3, "", "")
	const n = 10000
	leader := c.leader()
	a := newMember(t, "a", c, c.urls(leader), "")
	a.run("--project", project, "share")
	a.importObservations(project, "s-a", "a", n)

	cmd := exec.Command(memBin, "sync", "--deadline", "2m")
	cmd.Env, cmd.Dir = a.env, a.dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill the leader once part of the push is in.
	deadline := time.Now().Add(60 * time.Second)
	for c.count(`SELECT count(*) FROM mem_records`) < 1000 {
		if time.Now().After(deadline) {
			t.Fatalf("the push did not start: %s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.kill(leader)
	inAtKill := c.count(`SELECT count(*) FROM mem_records`)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("sync after the leader was killed: %v\n%s", err, out.String())
	}
	t.Logf("leader killed with %d of %d records in; the push went on: %s", inAtKill, n+1, strings.TrimSpace(out.String()))
	if inAtKill >= n+1 {
		t.Fatalf("the push was over before the leader was killed (%d records in)", inAtKill)
	}
	if got := c.count(`SELECT count(*) FROM mem_records WHERE kind = 'observation'`); got != n {
		t.Fatalf("cluster after the push: %d observations, want %d", got, n)
	}
	if got := c.count(`SELECT count(DISTINCT seq) FROM mem_records`); got != n+1 {
		t.Fatalf("cluster after the push: %d seqs, want %d", got, n+1)
	}

	// Bring the killed node back, then stop a follower while b pulls from it.
	c.start(leader)
	c.waitReady(leader)
	var follower = c.nodes[0]
	for _, nd := range c.nodes {
		if nd != c.leader() {
			follower = nd
			break
		}
	}
	b := newMember(t, "b", c, c.urls(follower), "")
	b.setConfig("[sync]\npage = 1000\n") // eleven pages: most of them after the stop
	b.run("--project", project, "share")
	cmd = exec.Command(memBin, "sync", "--deadline", "2m")
	cmd.Env, cmd.Dir = b.env, b.dir
	out.Reset()
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Stop the follower once b has applied a page (its cursor moved).
	deadline = time.Now().Add(60 * time.Second)
	cursor := 0
	for cursor == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the pull did not start: %s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
		cursor = pulledSoFar(b)
	}
	c.stop(follower)
	if cursor >= n+1 {
		t.Fatalf("the pull was over before the follower was stopped (cursor %d)", cursor)
	}
	t.Logf("follower stopped with the pull at seq %d of %d", cursor, n+1)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("sync after the follower was stopped: %v\n%s", err, out.String())
	}
	t.Logf("follower stopped mid-pull; the pull went on: %s", strings.TrimSpace(out.String()))
	checkMember(t, b, n, []string{"a"})
}

// pulledSoFar reads b's cursor without waiting on its sync's transactions.
func pulledSoFar(m *member) int {
	out, _, code := m.try("", "sync", "--status", "--json", "--deadline", "5s")
	if code != 0 || !strings.Contains(out, `"pulled":`) {
		return 0
	}
	i := strings.Index(out, `"pulled":`) + len(`"pulled":`)
	var v int
	fmt.Sscanf(out[i:], "%d", &v)
	return v
}

// TestForgetTravelsAndUnsharedStays: a forget on one member reaches every
// member, a member that still had the record never brings it back, and a
// project that is not shared never reaches the cluster.
func TestForgetTravelsAndUnsharedStays(t *testing.T) {
	c := startCluster(t, 3, "", "")
	a := newMember(t, "a", c, c.urls(), "")
	b := newMember(t, "b", c, c.urls(c.nodes[1]), "")
	d := newMember(t, "d", c, c.urls(c.nodes[2]), "")
	for _, m := range []*member{a, b, d} {
		m.run("--project", project, "share")
	}
	a.importObservations(project, "s-a", "a", 5)
	a.importObservations("github.com/acme/private", "s-private", "private", 3)
	a.run("sync")
	b.run("sync")
	d.run("sync")
	checkMember(t, b, 5, []string{"a"})
	checkMember(t, d, 5, nil)

	// b forgets one of a's records.
	id := b.count(`SELECT id FROM observations WHERE uuid = 'a-s-a-000002'`)
	b.run("forget", fmt.Sprint(id))
	b.run("sync")
	a.run("sync")
	if got := a.count(`SELECT count(*) FROM observations WHERE uuid = 'a-s-a-000002'`); got != 0 {
		t.Errorf("a still has the record b forgot")
	}
	if got := a.count(`SELECT count(*) FROM observations_fts WHERE observations_fts MATCH 'wax2'`); got != 0 {
		t.Errorf("a still finds the record b forgot")
	}
	// d still has it and tries to push it again: it shares the project
	// anew, which queues every record it has.
	if got := d.count(`SELECT count(*) FROM observations WHERE uuid = 'a-s-a-000002'`); got != 1 {
		t.Fatalf("d should still have the record before its sync")
	}
	seqBefore := c.count(`SELECT max(seq) FROM mem_records`)
	d.run("--project", project, "unshare")
	d.run("--project", project, "share")
	d.run("sync")
	// d pushed all it had again: the cluster changed in nothing.
	if got := c.count(`SELECT max(seq) FROM mem_records`); got != seqBefore {
		t.Errorf("pushing records the cluster had moved its sequence from %d to %d", seqBefore, got)
	}
	if got := d.count(`SELECT count(*) FROM observations WHERE uuid = 'a-s-a-000002'`); got != 0 {
		t.Errorf("d still has the forgotten record after its sync")
	}
	if rows := c.query(`SELECT kind, body FROM mem_records WHERE key = 'observation:a-s-a-000002'`); len(rows) != 1 || rows[0][0] != "tombstone" || rows[0][1] != "" {
		t.Errorf("cluster row of the forgotten record: %v, want a tombstone without text", rows)
	}
	// a imports the record again from an old export and syncs: it stays gone.
	a.importObservations(project, "s-a", "a", 5)
	a.run("sync")
	b.run("sync")
	for _, m := range []*member{a, b, d} {
		if got := m.count(`SELECT count(*) FROM observations WHERE uuid = 'a-s-a-000002'`); got != 0 && m != a {
			t.Errorf("%s: the forgotten record came back", m.name)
		}
	}
	if rows := c.query(`SELECT kind FROM mem_records WHERE key = 'observation:a-s-a-000002'`); len(rows) != 1 || rows[0][0] != "tombstone" {
		t.Errorf("the cluster brought the forgotten record back: %v", rows)
	}
	// The private project is nowhere in the cluster.
	if got := c.count(`SELECT count(*) FROM mem_records WHERE project = 'github.com/acme/private' OR body LIKE '%wprivate%' OR body LIKE '%s-private%'`); got != 0 {
		t.Errorf("cluster holds %d rows of the unshared project", got)
	}
	if got := b.count(`SELECT count(*) FROM observations WHERE project = 'github.com/acme/private'`); got != 0 {
		t.Errorf("b got %d records of a's unshared project", got)
	}
}

// TestWrongPassword: a clear error, exit 1, and the local data untouched.
func TestWrongPassword(t *testing.T) {
	c := startCluster(t, 3, "alice", "right-horse-battery")
	good := newMember(t, "good", c, c.urls(), "right-horse-battery")
	bad := newMember(t, "bad", c, c.urls(), "wrong-password-123")
	for _, m := range []*member{good, bad} {
		m.run("--project", project, "share")
		m.importObservations(project, "s-"+m.name, m.name, 4)
	}
	good.run("sync")
	before := bad.run("export")
	out, errOut, code := bad.try("", "sync")
	if code != 1 {
		t.Fatalf("sync with a wrong password: exit %d, want 1\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "refused the user name or password") || !strings.Contains(errOut, "alice") {
		t.Errorf("sync with a wrong password: unclear error %q", errOut)
	}
	if strings.Contains(out+errOut, "wrong-password-123") {
		t.Errorf("the password was printed: %s%s", out, errOut)
	}
	if strings.Count(errOut, "\n") != 1 {
		t.Errorf("want one line on stderr, got %q", errOut)
	}
	if after := bad.run("export"); after != before {
		t.Errorf("local data changed by a refused sync")
	}
	if got := bad.count(`SELECT count(*) FROM sync_state`); got != 0 {
		t.Errorf("a refused sync left %d sync states", got)
	}
	if show := bad.run("config", "show") + bad.run("remote", "show"); strings.Contains(show, "wrong-password-123") || !strings.Contains(show, "hidden") {
		t.Errorf("config show / remote show print the password or do not say it is set:\n%s", show)
	}
	// The right password works, and the cluster got good's records only.
	if got := c.count(`SELECT count(*) FROM mem_records WHERE origin LIKE '%' AND body LIKE '%wbadx%'`); got != 0 {
		t.Errorf("the refused member's records reached the cluster")
	}
	bad.runIn("right-horse-battery\n", "remote", "set", c.urls(), "--user", "alice", "--password-stdin")
	bad.run("sync")
	if got := bad.count(`SELECT count(*) FROM observations WHERE project = ?`, project); got != 8 {
		t.Errorf("after the right password: %d observations, want 8", got)
	}
}

// TestSessionEndSyncsInBackground: when a session ends, mem hook replies
// at once and a detached mem sync pushes the project.
func TestSessionEndSyncsInBackground(t *testing.T) {
	c := startCluster(t, 3, "", "")
	a := newMember(t, "a", c, c.urls(), "")
	a.run("--project", project, "share")
	a.importObservations(project, "s-end", "end", 30)
	a.env = append(a.env, "MEM_PROJECT="+project)
	ev := fmt.Sprintf(`{"session_id":"s-end","cwd":%q,"hook_event_name":"SessionEnd","reason":"prompt_input_exit"}`, a.dir)
	start := time.Now()
	out, errOut, code := a.try(ev, "hook", "claude-code")
	took := time.Since(start)
	if code != 0 {
		t.Fatalf("mem hook: exit %d: %s%s", code, out, errOut)
	}
	t.Logf("mem hook SessionEnd answered in %s", took)
	deadline := time.Now().Add(60 * time.Second)
	for c.count(`SELECT count(*) FROM mem_records WHERE project = ? AND kind = 'observation'`, project) != 30 {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(a.dir, "state", "mem", "hook.log"))
			t.Fatalf("the background sync did not push the session's records within 60s; hook log:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestForgottenSummaryGivesWayToALaterOne: a forgotten summary leaves
// every member and is not written again from the same activity; once the
// session goes on, its new summary reaches every member.
func TestForgottenSummaryGivesWayToALaterOne(t *testing.T) {
	c := startCluster(t, 3, "", "")
	a := newMember(t, "a", c, c.urls(), "")
	b := newMember(t, "b", c, c.urls(c.nodes[1]), "")
	for _, m := range []*member{a, b} {
		m.run("--project", project, "share")
	}
	a.run("--project", project, "session", "start", "--session", "s-sum")
	a.run("--project", project, "observe", "--session", "s-sum", "--type", "decision", "--title", "Vendor the zlib fork")
	a.run("--project", project, "session", "end", "--session", "s-sum")
	a.run("summarize", "--pending")
	a.run("sync")
	b.run("sync")
	sumKey := memory.TeamKey(memory.KeySummary+"s-sum", project) // the cluster's name of the session
	summaries := func(m *member, like string) int {
		return m.count(`SELECT count(*) FROM summaries WHERE session_id = 's-sum' AND text LIKE ?`, like)
	}
	if summaries(b, "%zlib%") != 1 {
		t.Fatalf("b did not get a's summary")
	}

	a.run("forget", fmt.Sprintf("S%d", a.count(`SELECT id FROM summaries WHERE session_id = 's-sum'`)))
	if out := a.run("summarize", "--pending"); !strings.Contains(out, "nothing to summarize") {
		t.Errorf("the forgotten summary was written again from the same activity:\n%s", out)
	}
	a.run("sync")
	b.run("sync")
	if n := summaries(b, "%"); n != 0 {
		t.Errorf("b still has the forgotten summary")
	}
	if rows := c.query(`SELECT kind FROM mem_records WHERE key = ?`, sumKey); len(rows) != 1 || rows[0][0] != "tombstone" {
		t.Errorf("cluster row of the forgotten summary: %v, want a tombstone", rows)
	}

	// The session goes on: its new summary is written and reaches b.
	a.run("--project", project, "observe", "--session", "s-sum", "--type", "problem", "--title", "The fork breaks arm64 builds")
	if out := a.run("summarize", "--pending"); !strings.Contains(out, "summarized 1 of 1") {
		t.Errorf("the session's later activity got no summary:\n%s", out)
	}
	a.run("sync")
	b.run("sync")
	if summaries(a, "%arm64%") != 1 || summaries(b, "%arm64%") != 1 {
		t.Errorf("the later summary: a has %d, b has %d, want 1 each", summaries(a, "%arm64%"), summaries(b, "%arm64%"))
	}
	if rows := c.query(`SELECT kind FROM mem_records WHERE key = ?`, sumKey); len(rows) != 1 || rows[0][0] != "summary" {
		t.Errorf("cluster row of the session's summary: %v, want the later summary", rows)
	}
	// b forgets it in turn: gone everywhere again.
	b.run("forget", fmt.Sprintf("S%d", b.count(`SELECT id FROM summaries WHERE session_id = 's-sum'`)))
	b.run("sync")
	a.run("sync")
	if n := summaries(a, "%"); n != 0 {
		t.Errorf("a still has the summary b forgot")
	}
}
