package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

func TestRecallReads(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	startTest(t, db, "s2", "p1")
	startTest(t, db, "o1", "other")
	base := time.UnixMilli(1_700_000_000_000)
	types := []memory.Type{memory.TypeNote, memory.TypeDecision, memory.TypeChange}
	for i := range 9 {
		sess := []string{"s1", "s2"}[i%2]
		if _, err := db.AddObservation(ctx, memory.Observation{SessionID: sess, Type: types[i%3],
			Title: fmt.Sprintf("obs %d", i), CreatedAt: base.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.AddObservation(ctx, memory.Observation{SessionID: "o1", Type: memory.TypeDecision,
		Title: "elsewhere", CreatedAt: base.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	titles := func(l []memory.Observation) string {
		var s []string
		for _, o := range l {
			s = append(s, o.Title)
		}
		return strings.Join(s, ",")
	}
	cases := []struct {
		name string
		got  func() ([]memory.Observation, error)
		want string
	}{
		{"recent", func() ([]memory.Observation, error) { return db.RecentBriefs(ctx, "p1", nil, 3, nil) }, "obs 8,obs 7,obs 6"},
		{"recent decisions", func() ([]memory.Observation, error) {
			return db.RecentBriefs(ctx, "p1", []memory.Type{memory.TypeDecision}, 10, nil)
		}, "obs 7,obs 4,obs 1"},
		{"session", func() ([]memory.Observation, error) { return db.SessionObservations(ctx, "s2", 2) }, "obs 7,obs 5"},
		{"unknown project", func() ([]memory.Observation, error) { return db.RecentBriefs(ctx, "nope", nil, 3, nil) }, ""},
	}
	for _, c := range cases {
		l, err := c.got()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := titles(l); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	for i, s := range []string{"s1", "s2"} {
		if _, err := db.PutSummary(ctx, memory.Summary{SessionID: s, Request: "r " + s, CreatedAt: base.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	sums, err := db.RecentSummaries(ctx, "p1", "", 10)
	if err != nil || len(sums) != 2 || sums[0].SessionID != "s2" {
		t.Fatalf("recent summaries: %+v %v", sums, err)
	}
	sums, err = db.RecentSummaries(ctx, "p1", "s2", 10)
	if err != nil || len(sums) != 1 || sums[0].SessionID != "s1" {
		t.Fatalf("recent summaries without s2: %+v %v", sums, err)
	}
	for _, c := range []struct {
		exclude     string
		limit, want int
	}{{"s1", 100, 1}, {"", 100, 2}, {"nope", 100, 2}, {"", 1, 1}, {"s1", 1, 1}} {
		if n, err := db.CountSummariesUpTo(ctx, "p1", c.exclude, c.limit); err != nil || n != c.want {
			t.Errorf("count summaries without %q up to %d: %d %v, want %d", c.exclude, c.limit, n, err, c.want)
		}
	}
	for _, c := range []struct{ limit, want int }{{100, 9}, {9, 9}, {4, 4}} {
		if n, err := db.CountObservationsUpTo(ctx, "p1", c.limit); err != nil || n != c.want {
			t.Errorf("count observations up to %d: %d %v, want %d", c.limit, n, err, c.want)
		}
	}
}

// TestRecallQueryPlans checks that recall's reads are index range scans:
// `mem inject` must cost the same on a small and a huge database.
func TestRecallQueryPlans(t *testing.T) {
	db := openTest(t)
	queries := map[string]string{
		"recent":   `SELECT id FROM observations WHERE project = 'p' ORDER BY created_at DESC, id DESC LIMIT 400`,
		"types":    `SELECT id FROM observations WHERE id IN (SELECT id FROM (SELECT id, type, created_at FROM observations WHERE project = 'p' ORDER BY created_at DESC, id DESC LIMIT 2000) WHERE type IN ('decision') ORDER BY created_at DESC, id DESC LIMIT 150) ORDER BY created_at DESC, id DESC`,
		"session":  `SELECT id FROM observations WHERE session_id = 's' ORDER BY created_at DESC, id DESC LIMIT 200`,
		"sums":     `SELECT id FROM summaries WHERE project = 'p' AND session_id <> 's' ORDER BY created_at DESC, id DESC LIMIT 6`,
		"countsum": `SELECT count(*) FROM (SELECT 1 FROM summaries WHERE project = 'p' LIMIT 100)`,
		"countobs": `SELECT count(*) FROM (SELECT 1 FROM observations WHERE project = 'p' LIMIT 100)`,
	}
	for name, q := range queries {
		rows, err := db.x.Query(`EXPLAIN QUERY PLAN ` + q)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		p := strings.Join(plan, "; ")
		if !strings.Contains(p, " INDEX ") || strings.Contains(p, "SCAN observations") || strings.Contains(p, "SCAN summaries") {
			t.Errorf("%s: plan %q does not use an index", name, p)
		}
		t.Logf("%s: %s", name, p)
	}
}

func TestDecodeListFastPath(t *testing.T) {
	for _, l := range [][]string{{}, {"a"}, {"internal/store/db.go", "x y"}, {`a"b`}, {`a\b`}, {"<&>"},
		{"é", "数据"}, {`","`, "x"}, {""}, {"a", ""}} {
		enc := encodeList(l)
		got := decodeList(enc)
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", append([]string{}, l...)) {
			t.Errorf("decodeList(%s) = %q, want %q", enc, got, l)
		}
	}
}
