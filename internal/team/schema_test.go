package team_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/team"
)

// execute runs statements on the leader in one transaction (the way an
// older mem wrote the cluster) and fails the test on any error.
func (c *cluster) execute(stmts ...[]any) {
	c.t.Helper()
	body, _ := json.Marshal(stmts)
	req, _ := http.NewRequest(http.MethodPost, "http://"+c.leader().http+"/db/execute?transaction", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if c.user != "" {
		req.SetBasicAuth(c.user, c.pass)
	}
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		c.t.Fatalf("cluster execute: %v", err)
	}
	defer resp.Body.Close()
	var r struct {
		Results []struct {
			Error string `json:"error"`
		} `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != http.StatusOK {
		c.t.Fatalf("cluster execute: %d %v", resp.StatusCode, err)
	}
	for i, res := range r.Results {
		if res.Error != "" {
			c.t.Fatalf("cluster execute %v: %s", stmts[i], res.Error)
		}
	}
}

// versionOneSchema is the cluster schema exactly as a mem that knew only
// version 1 made it, with one session and one observation it pushed.
func versionOneSchema(c *cluster) {
	c.t.Helper()
	sess := `{"kind":"session","id":"s-old","project":"` + project + `","agent":"claude-code","started_at":"2026-11-01T10:00:00Z","last_activity_at":"2026-11-01T10:00:00Z","status":"active"}`
	obs := `{"kind":"observation","uuid":"old-1","session_id":"s-old","project":"` + project + `","type":"decision","title":"pushed by an older mem","narrative":"the cache key includes the toolchain version","created_at":"2026-11-01T10:00:01Z"}`
	c.execute(
		[]any{`CREATE TABLE IF NOT EXISTS mem_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`},
		[]any{`CREATE TABLE IF NOT EXISTS mem_locks (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL)`},
		[]any{`INSERT INTO mem_meta (key, value) VALUES ('cluster_id', 'c0ffee0ldc1u5te4'), ('schema_version', '1')`},
		[]any{`CREATE TABLE IF NOT EXISTS mem_records (
			seq     INTEGER NOT NULL UNIQUE,
			key     TEXT PRIMARY KEY,
			kind    TEXT NOT NULL,
			uuid    TEXT NOT NULL,
			project TEXT NOT NULL,
			origin  TEXT NOT NULL,
			stamp   INTEGER NOT NULL,
			body    TEXT NOT NULL
		)`},
		[]any{`CREATE INDEX IF NOT EXISTS mem_records_project_seq ON mem_records (project, seq)`},
		[]any{`INSERT INTO mem_records VALUES (1, 'session:s-old', 'session', 's-old', ?, 'old-machine', 1, ?)`, project, sess},
		[]any{`INSERT INTO mem_records VALUES (2, 'observation:old-1', 'observation', 'old-1', ?, 'old-machine', 2, ?)`, project, obs},
	)
}

// TestClusterOfEitherShape: mem makes new clusters without the uuid column
// and syncs with clusters an older mem made with it (version 1), whose
// rows it leaves as they are: records go both ways on each, and what the
// older mem pushed is pulled.
func TestClusterOfEitherShape(t *testing.T) {
	for _, tt := range []struct {
		name    string
		prepare func(*cluster)
		version string
		uuid    int // mem_records columns named uuid
		old     int // records an older mem pushed
	}{
		{"made by this mem", func(*cluster) {}, "3", 0, 0},
		{"made at version 1", versionOneSchema, "3", 1, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := startCluster(t, 1, "", "")
			tt.prepare(c)
			a := newMember(t, "a", c, c.urls(), "")
			b := newMember(t, "b", c, c.urls(), "")
			a.importObservations(project, "s-a", "a", 5)
			b.importObservations(project, "s-b", "b", 3)
			for _, m := range []*member{a, b, a} {
				m.run("--project", project, "share")
				m.run("sync")
			}
			if got := c.query(`SELECT value FROM mem_meta WHERE key = 'schema_version'`); len(got) != 1 || got[0][0] != tt.version {
				t.Errorf("schema_version %v, want %s", got, tt.version)
			}
			if got := c.count(`SELECT count(*) FROM pragma_table_info('mem_records') WHERE name = 'uuid'`); got != tt.uuid {
				t.Errorf("%d uuid columns, want %d", got, tt.uuid)
			}
			if got := c.count(`SELECT count(*) FROM mem_records`); got != 2+5+3+2*tt.old {
				t.Errorf("%d cluster records, want %d", got, 2+5+3+2*tt.old)
			}
			if tt.uuid == 1 {
				if got := c.count(`SELECT count(*) FROM mem_records WHERE uuid = ''`); got != 2+5+3 {
					t.Errorf("%d records pushed by this mem with an empty uuid, want %d", got, 2+5+3)
				}
			}
			want := 5 + 3 + tt.old
			defer func() {
				if tt.old == 0 || t.Failed() {
					return
				}
				// Forgetting the session the older mem pushed under its
				// plain id leaves no text of it in the cluster, and reaches b.
				a.run("--project", project, "forget", "--session", "s-old")
				a.run("sync")
				b.run("sync")
				if n := c.count(`SELECT count(*) FROM mem_records WHERE body LIKE '%s-old%'`); n != 0 {
					t.Errorf("%d cluster records still hold the forgotten session", n)
				}
				if n := c.count(`SELECT count(*) FROM mem_records WHERE key = 'session:s-old' AND kind = 'tombstone'`); n != 1 {
					t.Errorf("the plain session key is not a tombstone")
				}
				if n := b.count(`SELECT count(*) FROM observations WHERE uuid = 'old-1'`); n != 0 {
					t.Errorf("b still has the forgotten session's observation")
				}
				checkMember(t, b, 5+3, []string{"a", "b"})
			}()
			for _, m := range []*member{a, b} {
				checkMember(t, m, want, []string{"a", "b"})
				var res team.Result
				out := m.run("sync", "--json")
				if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Projects) != 1 {
					t.Fatalf("%s: mem sync --json: %v\n%s", m.name, err, out)
				}
				if p := res.Projects[0]; p.Pushed != 0 || p.Pulled != (store.Pulled{}) {
					t.Errorf("%s: a second sync moved something: %+v", m.name, p)
				}
			}
		})
	}
}
