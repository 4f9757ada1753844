package store

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// querier is what the insert helpers need from a transaction: *sqlx.Tx, or a
// stmtCache over one when the same statements run many times.
type querier interface {
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// stmtCache prepares each distinct statement once per transaction: an import
// runs the same few statements for every record, and parsing them again each
// time cost a fifth of the import; a search runs the same few for every word
// and every top row.
type stmtCache struct {
	tx    *sqlx.Tx
	stmts map[string]*sqlx.Stmt
}

func newStmtCache(tx *sqlx.Tx) *stmtCache {
	return &stmtCache{tx: tx, stmts: map[string]*sqlx.Stmt{}}
}

func (c *stmtCache) stmt(ctx context.Context, q string) (*sqlx.Stmt, error) {
	if s, ok := c.stmts[q]; ok {
		return s, nil
	}
	s, err := c.tx.PreparexContext(ctx, q)
	if err != nil {
		return nil, err
	}
	c.stmts[q] = s
	return s, nil
}

func (c *stmtCache) GetContext(ctx context.Context, dest any, q string, args ...any) error {
	s, err := c.stmt(ctx, q)
	if err != nil {
		return err
	}
	return s.GetContext(ctx, dest, args...)
}

func (c *stmtCache) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	s, err := c.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

func (c *stmtCache) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s, err := c.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

func (c *stmtCache) close() {
	for _, s := range c.stmts {
		s.Close()
	}
}

// bulkObservations is the number of observations from which Import indexes
// in one pass at the end instead of row by row. Row by row, FTS5 flushes its
// pending terms to disk at every statement of the transaction (a savepoint
// per statement) and merges segments as it goes: 2,400-3,600 observations/s
// on 2 cores against 8,000-10,000/s with one pass (BenchmarkImport,
// the README).
const bulkObservations = 1000

// Ways Import can index; only the benchmarks choose other than importAuto.
const (
	importAuto     = iota // row by row below bulkObservations, one pass from it
	importRowByRow        // the triggers, whatever the size
	importRebuild         // drop the trigger, then rebuild the whole index
)

// bulk reports whether Import indexes n observations in one pass.
func (db *DB) bulk(n int) bool {
	switch db.importMode {
	case importRowByRow:
		return false
	case importRebuild:
		return true
	}
	return n >= bulkObservations
}

// suspendTrigger drops a trigger inside the transaction tx and returns a
// function that creates it again from its stored SQL. Both happen in the same
// transaction, so a rollback or a crash leaves the trigger as it was, and
// other connections never see the schema without it.
func suspendTrigger(ctx context.Context, tx *sqlx.Tx, name string) (restore func() error, err error) {
	var ddl string
	if err := tx.GetContext(ctx, &ddl, `SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`, name); err != nil {
		return nil, fmt.Errorf("reading trigger %s: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, `DROP TRIGGER `+name); err != nil {
		return nil, fmt.Errorf("suspending trigger %s: %w", name, err)
	}
	return func() error {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("restoring trigger %s: %w", name, err)
		}
		return nil
	}, nil
}

// indexObservations does for the observations with ids, in one statement
// each, what the observations_ai trigger does row by row: their full-text
// rows and their observation_files rows. Keep the two in step (a test
// compares the results of both paths).
func (db *DB) indexObservations(ctx context.Context, tx *sqlx.Tx, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	list := encodeIDs(ids)
	// A larger in-memory hash for this one pass: FTS5 flushes its pending
	// terms every 1 MB by default and then merges the small segments. 16 MB,
	// not more: the hash is resident memory, and 64 MB took an import of
	// 100k observations to 167 MB at its peak against 131 MB.
	if _, err := tx.ExecContext(ctx, `INSERT INTO observations_fts (observations_fts, rank) VALUES ('hashsize', 16777216)`); err != nil {
		return fmt.Errorf("sizing the full-text hash: %w", err)
	}
	defer tx.ExecContext(ctx, `DELETE FROM observations_fts_config WHERE k = 'hashsize'`)
	if db.importMode == importRebuild {
		// Measured against the one-pass insert (README): no faster on
		// an empty database, slower the more the database already holds.
		if _, err := tx.ExecContext(ctx, `INSERT INTO observations_fts (observations_fts) VALUES ('rebuild')`); err != nil {
			return fmt.Errorf("rebuilding the full-text index: %w", err)
		}
	} else if err := indexRows(ctx, tx, "observations",
		"title, subtitle, narrative, facts, concepts, files_read, files_modified, search_terms", ids); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO observation_files (path, observation_id, modified)
		SELECT f.value, o.id, 0 FROM observations o, json_each(o.files_read) f
		WHERE o.id IN (SELECT value FROM json_each(?1))
		UNION SELECT f.value, o.id, 1 FROM observations o, json_each(o.files_modified) f
		WHERE o.id IN (SELECT value FROM json_each(?1))`, list); err != nil {
		return fmt.Errorf("recording files of imported observations: %w", err)
	}
	return nil
}

// indexSummariesPrompts does for the summaries and prompts with these ids,
// in one statement each, what the summaries_ai and prompts_ai triggers do
// row by row.
func indexSummariesPrompts(ctx context.Context, tx *sqlx.Tx, summaries, prompts []int64) error {
	if err := indexRows(ctx, tx, "summaries", "request, investigated, learned, completed, next_steps, decisions, concepts, files, text",
		summaries); err != nil {
		return err
	}
	return indexRows(ctx, tx, "prompts", "text", prompts)
}

// indexRows adds the rows of table with these ids to its full-text index
// (table_fts, whose columns are cols).
func indexRows(ctx context.Context, tx *sqlx.Tx, table, cols string, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+`_fts (rowid, `+cols+`) SELECT id, `+cols+` FROM `+table+`
		WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`, encodeIDs(ids)); err != nil {
		return fmt.Errorf("indexing imported %s: %w", table, err)
	}
	return nil
}

// bulkTx is tx for large batches: on its own connection it keeps the
// statement journal in memory and gives the page cache 16 MiB, so that one
// big transaction does not spill and rewrite hot pages, then puts both
// settings back before the connection returns to the pool. Not more: giving
// the pages back frees them one by one (an madvise each in modernc's
// allocator), which with 64 MiB cost a tenth of an import's CPU, and the
// cache is resident memory.
func (db *DB) bulkTx(ctx context.Context, big bool, fn func(*sqlx.Tx) error) error {
	if !big {
		return db.tx(ctx, fn)
	}
	return db.retry(ctx, func() error {
		c, err := db.x.Connx(ctx)
		if err != nil {
			return mapErr(err)
		}
		defer c.Close()
		if _, err := c.ExecContext(ctx, `PRAGMA temp_store = MEMORY; PRAGMA cache_size = -16384`); err != nil {
			return mapErr(err)
		}
		defer c.ExecContext(context.WithoutCancel(ctx), `PRAGMA temp_store = DEFAULT; PRAGMA cache_size = -2000`)
		t, err := c.BeginTxx(ctx, nil)
		if err != nil {
			return mapErr(err)
		}
		return commitOrRollback(t, fn)
	})
}

// deriveAll computes derive for every observation record, spread over the
// CPUs, so that the transaction that follows only talks to SQLite.
func deriveAll(recs []memory.Record) []derived {
	out := make([]derived, len(recs))
	workers := runtime.GOMAXPROCS(0)
	chunk := (len(recs) + workers - 1) / workers
	var wg sync.WaitGroup
	for start := 0; start < len(recs); start += chunk {
		end := min(start+chunk, len(recs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := start; i < end; i++ {
				if o := recs[i].Observation; recs[i].Kind == memory.KindObservation && o != nil {
					out[i] = derive(o)
				}
			}
		}()
	}
	wg.Wait()
	return out
}
