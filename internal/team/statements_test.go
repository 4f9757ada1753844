package team

import (
	"database/sql"
	"testing"

	"github.com/memhq/mem/internal/memory"
	_ "modernc.org/sqlite" // the cluster's dialect, here in a local file
)

// The cluster's statements, run on SQLite (rqlite's engine) on both shapes
// of mem_records: what each write leaves in a row.
func TestClusterStatements(t *testing.T) {
	versionOne := `CREATE TABLE mem_records (seq INTEGER NOT NULL UNIQUE, key TEXT PRIMARY KEY, kind TEXT NOT NULL,
		uuid TEXT NOT NULL, project TEXT NOT NULL, origin TEXT NOT NULL, stamp INTEGER NOT NULL, body TEXT NOT NULL)`
	type write struct {
		plain                    bool // forgetPlain instead of upsert
		key, kind, project, body string
		stamp                    int64
		wantKind, wantBody       string
		wantSeq                  int64
	}
	u := memory.TeamSessionID("u", "p")
	steps := []write{
		{key: "session:s", kind: "session", project: "p", body: "s1", stamp: 1, wantKind: "session", wantBody: "s1", wantSeq: 1},
		{key: "session:s", kind: "session", project: "p", body: "s1", stamp: 1, wantKind: "session", wantBody: "s1", wantSeq: 1},
		{key: "summary:s", kind: "summary", project: "p", body: "old", stamp: 5, wantKind: "summary", wantBody: "old", wantSeq: 2},
		{key: "summary:s", kind: "summary", project: "p", body: "older", stamp: 4, wantKind: "summary", wantBody: "old", wantSeq: 2},
		{key: "summary:s", kind: "summary", project: "p", body: "new", stamp: 6, wantKind: "summary", wantBody: "new", wantSeq: 3},
		// Another project's rows under the same key change nothing.
		{key: "summary:s", kind: "summary", project: "q", body: "theirs", stamp: 9, wantKind: "summary", wantBody: "new", wantSeq: 3},
		{key: "session:s", kind: "tombstone", project: "q", stamp: 9, wantKind: "session", wantBody: "s1", wantSeq: 1},
		{plain: true, key: "session:s", project: "q", stamp: 9, wantKind: "session", wantBody: "s1", wantSeq: 1},
		// The project's own tombstone, by either statement, stays.
		{plain: true, key: "session:s", project: "p", stamp: 9, wantKind: "tombstone", wantBody: "", wantSeq: 4},
		{plain: true, key: "session:s", project: "p", stamp: 10, wantKind: "tombstone", wantBody: "", wantSeq: 4},
		{key: "summary:s", kind: "tombstone", project: "p", stamp: 9, wantKind: "tombstone", wantBody: "", wantSeq: 5},
		{key: "summary:s", kind: "summary", project: "p", body: "back", stamp: 99, wantKind: "tombstone", wantBody: "", wantSeq: 5},
		// A summary's tombstone covers the versions up to it: an older one
		// leaves a newer summary, one as new removes it, the version it
		// removed stays out, and a summary written after it replaces it.
		{key: "summary:t", kind: "summary", project: "p", body: "v1", stamp: 5, wantKind: "summary", wantBody: "v1", wantSeq: 6},
		{key: "summary:t", kind: "tombstone", project: "p", stamp: 4, wantKind: "summary", wantBody: "v1", wantSeq: 6},
		{key: "summary:t", kind: "tombstone", project: "p", stamp: 5, wantKind: "tombstone", wantBody: "", wantSeq: 7},
		{key: "summary:t", kind: "summary", project: "p", body: "v1", stamp: 5, wantKind: "tombstone", wantBody: "", wantSeq: 7},
		{key: "summary:t", kind: "summary", project: "p", body: "later", stamp: 8, wantKind: "summary", wantBody: "later", wantSeq: 8},
		{key: "summary:t", kind: "tombstone", project: "q", stamp: 20, wantKind: "summary", wantBody: "later", wantSeq: 8},
		{key: "summary:t", kind: "tombstone", project: "p", stamp: 9, wantKind: "tombstone", wantBody: "", wantSeq: 9},
		// A session an older mem forgot under its plain id keeps its
		// summary, under the cluster's name, from coming back.
		{key: "session:u", kind: "tombstone", project: "p", stamp: 3, wantKind: "tombstone", wantBody: "", wantSeq: 10},
		{key: "summary:" + u, kind: "summary", project: "p", body: "x", stamp: 5, wantKind: "summary", wantBody: "x", wantSeq: 11},
		{key: "summary:" + u, kind: "tombstone", project: "p", stamp: 6, wantKind: "tombstone", wantBody: "", wantSeq: 12},
		{key: "summary:" + u, kind: "summary", project: "p", body: "back", stamp: 99, wantKind: "tombstone", wantBody: "", wantSeq: 12},
	}
	for _, shape := range []struct {
		name       string
		create     string
		uuidColumn bool
	}{{"version 1, with uuid", versionOne, true}, {"newest", clusterSchema[0], false}} {
		t.Run(shape.name, func(t *testing.T) {
			db, err := sql.Open("sqlite", ":memory:")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			if _, err := db.Exec(shape.create); err != nil {
				t.Fatal(err)
			}
			for i, w := range steps {
				if w.plain {
					_, err = db.Exec(forgetPlain, "origin", w.stamp, w.key, w.project)
				} else {
					_, err = db.Exec(upsert(shape.uuidColumn), upsertArgs(w.key, w.kind, w.project, "origin", w.stamp, w.body)...)
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				var kind, body, project string
				var seq int64
				if err := db.QueryRow(`SELECT kind, body, project, seq FROM mem_records WHERE key = ?`, w.key).Scan(&kind, &body, &project, &seq); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if kind != w.wantKind || body != w.wantBody || seq != w.wantSeq || project != "p" {
					t.Errorf("step %d (%s %s of %s): row %s %q of %s seq %d, want %s %q of p seq %d",
						i, w.key, w.kind, w.project, kind, body, project, seq, w.wantKind, w.wantBody, w.wantSeq)
				}
			}
		})
	}
}
