package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// After an import, the small writes of hooks never merge the imported
// index: the import leaves it as one segment above the level their
// segments go to, and without automerge (migration 00010) FTS5 merges
// those only among themselves. Before, the 15th small write merged the
// whole imported index, in the hook that made it.
func TestHooksDoNotMergeTheImportedIndex(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	for _, tb := range ftsTables {
		var automerge int
		if err := db.SQL().Get(&automerge, `SELECT v FROM `+tb+`_config WHERE k = 'automerge'`); err != nil || automerge != 0 {
			t.Fatalf("%s: automerge %d (%v), want 0", tb, automerge, err)
		}
	}
	if _, err := db.Import(ctx, benchRecords(t, 3000)); err != nil {
		t.Fatal(err)
	}
	// On ftsQuietLevel: FTS5 merges a whole level once it holds 16
	// segments, so the hooks' writes merge it only after 15 × 16^level of
	// them (on level 1, an Edit hook 660 hooks after a 100k import took
	// 764 ms). The nightly job's merge leaves it there too.
	quiet := func(when string) {
		t.Helper()
		for _, tb := range ftsTables {
			if err := db.read(ctx, func(tx *sqlx.Tx) error {
				n, err := ftsLevels(ctx, tx, tb)
				if err == nil && n <= ftsQuietLevel {
					err = fmt.Errorf("its segment on level %d, want %d or above", n-1, ftsQuietLevel)
				}
				return err
			}); err != nil {
				t.Fatalf("%s, %s: %v", when, tb, err)
			}
		}
	}
	quiet("after the import")
	if _, err := db.OptimizeFTS(ctx); err != nil {
		t.Fatal(err)
	}
	quiet("after the nightly merge")
	// The imported index's segment: the one with the most leaf pages.
	var big struct {
		Seg   int `db:"segid"`
		Pages int `db:"pages"`
	}
	if err := db.SQL().Get(&big, `SELECT segid, count(*) AS pages FROM observations_fts_idx GROUP BY segid ORDER BY pages DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.StartSession(ctx, memory.Session{ID: "hooks", Project: "p", Agent: "claude-code", StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		if _, err := db.Apply(ctx, "", func(tx *DB) error {
			_, err := tx.AddObservation(ctx, memory.Observation{SessionID: "hooks", Project: "p", Type: memory.TypeNote,
				Title: fmt.Sprintf("hook note %d on retries", i), CreatedAt: time.Now()})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.SQL().Get(&n, `SELECT count(*) FROM observations_fts_idx WHERE segid = ?`, big.Seg); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("small write %d merged the imported index (segment %d, %d pages)", i+1, big.Seg, big.Pages)
		}
	}
}
