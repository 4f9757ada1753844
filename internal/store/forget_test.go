package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// fileHolds reports which of the database's files (the database, its WAL
// and shared memory) hold marker, in any case: FTS5 keeps terms lowercased.
func fileHolds(t *testing.T, path, marker string) []string {
	t.Helper()
	var in []string
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		data, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(bytes.ToLower(data), []byte(strings.ToLower(marker))) {
			in = append(in, p)
		}
	}
	return in
}

// Forgotten text is gone from the file: not in free pages or free space in
// pages, not in the FTS5 index, not in the WAL.
func TestForgetLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name         string
		wholeSession bool // the forget takes the session: its prompts and last message hold the marker too
		forget       func(db *DB, s memory.Session, obs, sum int64) error
	}{
		{"session", true, func(db *DB, s memory.Session, _, _ int64) error { _, err := db.DeleteSession(ctx, s.ID); return err }},
		{"project", true, func(db *DB, s memory.Session, _, _ int64) error {
			_, err := db.DeleteProject(ctx, s.Project)
			return err
		}},
		{"observation and summary", false, func(db *DB, _ memory.Session, obs, sum int64) error {
			_, err := db.DeleteRecords(ctx, []int64{obs}, []int64{sum})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openTest(t)
			at := time.UnixMilli(1_700_000_000_000)
			// Rows that stay share pages with the forgotten ones.
			keep := startTest(t, db, "keep", "other")
			for i := range 20 {
				if _, err := db.AddObservation(ctx, memory.Observation{SessionID: keep.ID, Type: memory.TypeNote,
					Title: fmt.Sprintf("kept note %d about the cache", i), Narrative: "nothing to forget", CreatedAt: at}); err != nil {
					t.Fatal(err)
				}
			}
			const marker = "Zqxvortuglyph"
			s := startTest(t, db, "gone", "proj")
			a, err := db.AddObservation(ctx, memory.Observation{SessionID: s.ID, Type: memory.TypeDecision,
				Title: "Use " + marker + " for billing", Narrative: "because " + marker + "s are fast",
				Facts: []string{marker + " fact"}, FilesModified: []string{"pkg/" + marker + ".go"}, CreatedAt: at})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := db.PutSummary(ctx, memory.Summary{SessionID: s.ID, Request: "the " + marker + " work",
				Learned: marker + " learned", Text: marker + " summary", CreatedAt: at})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wholeSession {
				if _, err := db.AddPrompt(ctx, s.ID, "tell me about "+marker, at); err != nil {
					t.Fatal(err)
				}
				if err := db.SetLastMessage(ctx, s.ID, "done with "+marker, at); err != nil {
					t.Fatal(err)
				}
			}
			if len(fileHolds(t, db.Path(), marker)) == 0 {
				t.Fatal("the marker is not in the files before the forget: the test checks nothing")
			}
			if err := tt.forget(db, s, a.ID, sum.ID); err != nil {
				t.Fatal(err)
			}
			if in := fileHolds(t, db.Path(), marker); len(in) > 0 {
				t.Errorf("after the forget, %v still hold %q", in, marker)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if in := fileHolds(t, db.Path(), marker); len(in) > 0 {
				t.Errorf("after closing, %v still hold %q", in, marker)
			}
		})
	}
}

// TestForgetIsOneTransaction: when one of the records cannot be deleted,
// none is, whether the failure comes from SQLite or from a missing id.
func TestForgetIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	at := time.UnixMilli(1_700_000_000_000)
	tests := []struct {
		name string
		fail string // statement run before the forget
		// which of the three observations and the summary to forget
		obs  []int
		sums bool
		want string
	}{
		{"observation fails after two", `CREATE TRIGGER boom BEFORE DELETE ON observations WHEN old.id = %[3]d
			BEGIN SELECT RAISE(ABORT, 'boom'); END`, []int{0, 1, 2}, true, "boom"},
		{"summary fails after the observations", `CREATE TRIGGER boom BEFORE DELETE ON summaries WHEN old.id = %[4]d
			BEGIN SELECT RAISE(ABORT, 'boom'); END`, []int{0, 1, 2}, true, "boom"},
		{"last observation missing", `DELETE FROM observations WHERE id = %[3]d`, []int{0, 1, 2}, false, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := openTest(t)
			s := startTest(t, db, "s", "p")
			var ids []int64
			for i := range 3 {
				o, err := db.AddObservation(ctx, memory.Observation{SessionID: s.ID, Type: memory.TypeNote,
					Title: fmt.Sprintf("note %d", i), CreatedAt: at})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, o.ID)
			}
			sum, err := db.PutSummary(ctx, memory.Summary{SessionID: s.ID, Request: "work", CreatedAt: at})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.SQL().Exec(fmt.Sprintf(tt.fail, ids[0], ids[1], ids[2], sum.ID)); err != nil {
				t.Fatal(err)
			}
			count := func() (n int) {
				if err := db.SQL().QueryRow(`SELECT (SELECT count(*) FROM observations) + (SELECT count(*) FROM summaries)`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			before := count()
			var obs, sums []int64
			for _, i := range tt.obs {
				obs = append(obs, ids[i])
			}
			if tt.sums {
				sums = []int64{sum.ID}
			}
			d, err := db.DeleteRecords(ctx, obs, sums)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
			if d != (Deleted{}) {
				t.Errorf("reported %+v deleted", d)
			}
			if after := count(); after != before {
				t.Errorf("%d records before, %d after a failed forget", before, after)
			}
		})
	}
	// Both kinds at once, an id given twice counting once.
	db := openTest(t)
	s := startTest(t, db, "s", "p")
	o, err := db.AddObservation(ctx, memory.Observation{SessionID: s.ID, Type: memory.TypeNote, Title: "n", CreatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := db.PutSummary(ctx, memory.Summary{SessionID: s.ID, Request: "work", CreatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	d, err := db.DeleteRecords(ctx, []int64{o.ID, o.ID}, []int64{sum.ID})
	if err != nil || d != (Deleted{Observations: 1, Summaries: 1}) {
		t.Fatalf("deleted %+v, %v", d, err)
	}
}

// Maintenance drops the pending context of sessions ended long ago, and
// leaves none of it in the file.
func TestMaintainLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	const marker = "Wubbalixquorn"
	s := startTest(t, db, "old", "proj")
	at := time.UnixMilli(1_700_000_000_000)
	for i := range 5 {
		if err := db.RegisterPending(ctx, memory.PendingEntry{SessionID: s.ID, Source: "test", EntryID: fmt.Sprint(i),
			Content: fmt.Sprintf("context %d about %s", i, marker), Priority: 1, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SQL().Exec(`UPDATE sessions SET status = 'ended', ended_at = ? WHERE id = ?`, at.UnixMilli(), s.ID); err != nil {
		t.Fatal(err)
	}
	if len(fileHolds(t, db.Path(), marker)) == 0 {
		t.Fatal("the marker is not in the files before maintenance: the test checks nothing")
	}
	r, err := db.Maintain(ctx, at.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if r.PendingDropped != 5 {
		t.Fatalf("dropped %d pending entries, want 5", r.PendingDropped)
	}
	if in := fileHolds(t, db.Path(), marker); len(in) > 0 {
		t.Errorf("after maintenance, %v still hold %q", in, marker)
	}
}
