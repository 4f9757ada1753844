package team_test

import (
	"testing"
)

// TestSameSessionIDInTwoProjects: sessions of two projects on two members
// with the same id (ids a user chooses: mem observe --session, mem mcp
// --session, MEM_SESSION) stay two sessions: each reaches the cluster and
// the members sharing its project, in its own project with its own summary;
// a member sharing both holds both; forgetting one forgets only that one.
func TestSameSessionIDInTwoProjects(t *testing.T) {
	const p1, p2, id = "github.com/acme/alpha", "github.com/acme/beta", "notes"
	c := startCluster(t, 1, "", "")
	a := newMember(t, "a", c, c.urls(), "")
	b := newMember(t, "b", c, c.urls(), "")
	both := newMember(t, "both", c, c.urls(), "")
	for _, w := range []struct {
		m       *member
		project string
		word    string
	}{{a, p1, "alphaword"}, {b, p2, "betaword"}} {
		w.m.run("--project", w.project, "observe", "--session", id, "--type", "decision", "--title", "decided "+w.word+" for the build")
		w.m.run("--project", w.project, "summarize", "--session", id)
		w.m.run("--project", w.project, "share")
		w.m.run("sync")
	}
	both.run("--project", p1, "share")
	both.run("--project", p2, "share")
	both.run("sync")
	a.run("sync")
	b.run("sync")

	if got := c.count(`SELECT count(*) FROM mem_records WHERE kind IN ('session', 'summary')`); got != 4 {
		t.Errorf("%d sessions and summaries in the cluster, want 4 (two of each)", got)
	}
	for _, w := range []struct {
		project, word, other string
	}{{p1, "alphaword", "betaword"}, {p2, "betaword", "alphaword"}} {
		n := both.count(`SELECT count(*) FROM observations o JOIN sessions s ON s.id = o.session_id
			WHERE o.project = ? AND s.project = ? AND o.title LIKE ?`, w.project, w.project, "%"+w.word+"%")
		if n != 1 {
			t.Errorf("both: %d observations with %s in a session of %s, want 1", n, w.word, w.project)
		}
		if n := both.count(`SELECT count(*) FROM summaries WHERE project = ? AND text LIKE ? AND text NOT LIKE ?`,
			w.project, "%"+w.word+"%", "%"+w.other+"%"); n != 1 {
			t.Errorf("both: %d summaries of %s that tell of %s alone, want 1", n, w.project, w.word)
		}
	}
	for _, m := range []*member{a, b} {
		if n := m.count(`SELECT count(*) FROM sessions`); n != 1 {
			t.Errorf("%s: %d sessions, want its own one", m.name, n)
		}
		if n := m.count(`SELECT count(*) FROM summaries`); n != 1 {
			t.Errorf("%s: %d summaries, want its own one", m.name, n)
		}
	}
	if n := a.count(`SELECT count(*) FROM summaries WHERE text LIKE '%alphaword%'`); n != 1 {
		t.Errorf("a: its summary was replaced by the other project's")
	}

	// b forgets its session: it goes from the cluster and from both; a's stays.
	b.run("--project", p2, "forget", "--session", id)
	b.run("sync")
	both.run("sync")
	a.run("sync")
	if n := both.count(`SELECT count(*) FROM observations WHERE title LIKE '%betaword%'`); n != 0 {
		t.Errorf("both: %d observations of the forgotten session, want 0", n)
	}
	for _, m := range []*member{a, both} {
		if n := m.count(`SELECT count(*) FROM observations WHERE project = ? AND title LIKE '%alphaword%'`, p1); n != 1 {
			t.Errorf("%s: %d observations of %s's session after the other was forgotten, want 1", m.name, n, p1)
		}
		if n := m.count(`SELECT count(*) FROM summaries WHERE project = ?`, p1); n != 1 {
			t.Errorf("%s: %d summaries of %s after the other session was forgotten, want 1", m.name, n, p1)
		}
	}
	if n := c.count(`SELECT count(*) FROM mem_records WHERE body LIKE '%betaword%'`); n != 0 {
		t.Errorf("%d cluster records still hold the forgotten session's text", n)
	}
	if n := c.count(`SELECT count(*) FROM mem_records WHERE body LIKE '%alphaword%'`); n < 2 {
		t.Errorf("%d cluster records hold the other project's session, want its observation and summary", n)
	}
}

// TestPlainSessionIDFromOlderMem: a session an older mem pushed under its
// plain id, pulled by a member that has its own session of that id in
// another project, gets the cluster's name there; forgetting it there turns
// the older row into a tombstone and leaves the member's own session.
func TestPlainSessionIDFromOlderMem(t *testing.T) {
	const other = "github.com/acme/other"
	c := startCluster(t, 1, "", "")
	versionOneSchema(c)
	d := newMember(t, "d", c, c.urls(), "")
	d.run("--project", other, "observe", "--session", "s-old", "--type", "decision", "--title", "decided ownword here")
	d.run("--project", project, "share")
	d.run("sync")
	var named string
	db := d.open()
	if err := db.SQL().Get(&named, `SELECT s.id FROM observations o JOIN sessions s ON s.id = o.session_id
		WHERE o.uuid = 'old-1' AND s.project = ?`, project); err != nil {
		t.Fatalf("the older mem's observation is not in a session of %s: %v", project, err)
	}
	db.Close()
	if named == "s-old" {
		t.Fatalf("the older mem's session took the id of d's own session of %s", other)
	}
	d.run("--project", project, "forget", "--session", named)
	d.run("sync")
	if n := c.count(`SELECT count(*) FROM mem_records WHERE body LIKE '%older mem%'`); n != 0 {
		t.Errorf("%d cluster records still hold the forgotten session", n)
	}
	if n := c.count(`SELECT count(*) FROM mem_records WHERE key = 'session:s-old' AND kind = 'tombstone'`); n != 1 {
		t.Errorf("the plain session key is not a tombstone")
	}
	if n := d.count(`SELECT count(*) FROM observations WHERE project = ? AND title LIKE '%ownword%'`, other); n != 1 {
		t.Errorf("d: its own session of %s lost its observation", other)
	}
}
