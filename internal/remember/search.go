package remember

import (
	"context"

	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/store"
)

// Search runs q over one snapshot of db and checks and marks its hits
// there: each observation hit's cited files are checked against the work
// tree (cite), and a stale or retired one is noted and ranked lower
// (search.Mark); a hit the instruction check holds back carries its flag
// (Hit.Flag). learnt is what the check learnt of the files, for a caller
// that may write to keep (Keep); a command a person runs does not.
func Search(ctx context.Context, db *store.DB, q search.Query) (hits []search.Hit, learnt []memory.Citation, err error) {
	err = db.Read(ctx, func(rx *store.DB) error {
		if hits, err = search.Search(ctx, rx, q); err != nil {
			return err
		}
		ck := &cite.Checker{Store: rx}
		st, err := ck.Check(ctx, search.ObservationIDs(hits))
		if err != nil {
			return err
		}
		search.Mark(hits, st)
		learnt = ck.Learnt()
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return hits, learnt, nil
}

// Keep writes what a citation check learnt back to the citations, in one
// write transaction (none when it learnt nothing), so that the next check
// only stats the files.
func Keep(ctx context.Context, db *store.DB, learnt []memory.Citation) error {
	if len(learnt) == 0 {
		return nil
	}
	return db.Write(ctx, func(tx *store.DB) error { return tx.UpdateCitations(ctx, learnt) })
}
