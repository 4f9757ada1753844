package team_test

// What a member who can write to the cluster can and cannot do to others:
// rows written straight into mem_records, as such a member could.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
