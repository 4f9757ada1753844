package store

import (
	"context"
	"errors"
	"testing"

	"github.com/memhq/mem/internal/memory"
)

// TestBulkImportMatchesIncremental imports the same memory once in one big
// batch (the bulk path that indexes at the end) and once session by session
// (the triggers), and expects the same full-text index and file table.
func TestBulkImportMatchesIncremental(t *testing.T) {
	ctx := context.Background()
	recs := benchRecords(t, 2*bulkObservations)
	bulk, inc := openTest(t), openTest(t)
	if _, err := bulk.Import(ctx, recs); err != nil {
		t.Fatal(err)
	}
	start := 0
	for i := 1; i <= len(recs); i++ {
		if i == len(recs) || recs[i].Kind == memory.KindSession {
			if _, err := inc.Import(ctx, recs[start:i]); err != nil {
				t.Fatal(err)
			}
			start = i
		}
	}
	for _, db := range []*DB{bulk, inc} {
		for _, c := range db.Doctor(ctx) {
			if !c.OK && c.Name != "wal" {
				t.Errorf("doctor %s: %s", c.Name, c.Detail)
			}
		}
	}
	for _, q := range []string{"error", "timeout", "quokkaflux", `"internal store"`, "parse", "files_modified:go"} {
		if b, i := ftsCount(t, bulk, q), ftsCount(t, inc, q); b != i || b == 0 {
			t.Errorf("MATCH %s: bulk %d, incremental %d", q, b, i)
		}
	}
	// Summaries and prompts are indexed in one pass too.
	for _, c := range []struct{ table, match string }{
		{"summaries", "error"}, {"summaries", "timeout"}, {"prompts", "error"}, {"prompts", "the"}, {"prompts", "retry OR cache"},
	} {
		count := func(db *DB) int {
			var n int
			if err := db.x.Get(&n, `SELECT count(*) FROM `+c.table+`_fts WHERE `+c.table+`_fts MATCH ?`, c.match); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if b, i := count(bulk), count(inc); b != i || b == 0 {
			t.Errorf("%s MATCH %s: bulk %d, incremental %d", c.table, c.match, b, i)
		}
	}
	fileRows := func(db *DB) (n, sum int64) {
		if err := db.x.QueryRow(`SELECT count(*), sum(observation_id * (modified + 1) * length(path)) FROM observation_files`).Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		return n, sum
	}
	bn, bs := fileRows(bulk)
	in, is := fileRows(inc)
	if bn != in || bs != is || bn == 0 {
		t.Errorf("observation_files: bulk %d rows (%d), incremental %d rows (%d)", bn, bs, in, is)
	}
	var hashRows int
	if err := bulk.x.Get(&hashRows, `SELECT count(*) FROM observations_fts_config WHERE k = 'hashsize'`); err != nil || hashRows != 0 {
		t.Errorf("FTS hashsize left in the config after a bulk import: %d rows (%v)", hashRows, err)
	}
	// The trigger is back: a new observation is indexed.
	a, err := bulk.AddObservation(ctx, memory.Observation{SessionID: "bench-00000000", Type: memory.TypeNote,
		Title: "zebracorn appears once", FilesRead: []string{"zz/unique.go"}})
	if err != nil || a.Duplicate {
		t.Fatalf("add after bulk import: %+v %v", a, err)
	}
	if n := ftsCount(t, bulk, "zebracorn"); n != 1 {
		t.Errorf("observation added after a bulk import: %d FTS rows, want 1", n)
	}
}

// TestBulkImportAllOrNothing: a record refused at the end of a big batch
// leaves nothing behind, the trigger included.
func TestBulkImportAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	recs := benchRecords(t, 2*bulkObservations)
	bad := memory.Observation{UUID: "orphan", SessionID: "no-such-session", Type: memory.TypeNote, Title: "x"}
	recs = append(recs, memory.Record{Line: len(recs) + 1, Kind: memory.KindObservation, Observation: &bad})
	_, err := db.Import(ctx, recs)
	var le *memory.LineError
	if !errors.As(err, &le) || le.Line != len(recs) {
		t.Fatalf("import with a bad last line: %v, want a LineError for line %d", err, len(recs))
	}
	if n, _ := db.CountObservations(ctx, ""); n != 0 {
		t.Errorf("%d observations after a refused import, want 0", n)
	}
	var triggers int
	if err := db.x.Get(&triggers, `SELECT count(*) FROM sqlite_master WHERE type = 'trigger'
		AND name IN ('observations_ai', 'summaries_ai', 'prompts_ai')`); err != nil || triggers != 3 {
		t.Errorf("insert triggers after a refused import: %d of 3 (%v)", triggers, err)
	}
}

// TestImportStreamSourceFails: a stream that fails after the import began
// (a bad line far into the file) writes nothing, and its error comes back.
func TestImportStreamSourceFails(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	recs := benchRecords(t, 3*bulkObservations)
	bad := errors.New("line 99999: bad")
	sent := 0
	_, err := db.ImportStream(ctx, func() ([]memory.Record, error) {
		if sent >= len(recs)*2/3 {
			return nil, bad
		}
		batch := recs[sent:min(sent+256, len(recs))]
		sent += len(batch)
		return batch, nil
	})
	if !errors.Is(err, bad) {
		t.Fatalf("ImportStream: %v, want the stream's error", err)
	}
	for _, table := range []string{"sessions", "observations", "prompts", "summaries", "observations_fts", "prompts_fts"} {
		var n int
		if err := db.x.Get(&n, `SELECT count(*) FROM `+table); err != nil || n != 0 {
			t.Errorf("%s: %d rows after a failed import (%v), want 0", table, n, err)
		}
	}
}
