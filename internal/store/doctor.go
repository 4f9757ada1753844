package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Check is one finding of Doctor.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Busy: the check could not run, another process held the database for
	// longer than Options.Wait. It says nothing of damage; OK is true.
	Busy bool `json:"busy,omitempty"`
	// Warn: nothing failed, but something wants the user's attention (the
	// detail says what to do). OK is true.
	Warn bool `json:"warn,omitempty"`
}

// ftsTables are the full-text indexes kept by triggers.
var ftsTables = []string{"observations_fts", "summaries_fts", "prompts_fts"}

// walWarnBytes is the WAL size above which a checkpoint is overdue.
const walWarnBytes = 64 << 20

// BusyDetail is the detail of a check another process kept from running.
const BusyDetail = "not checked: another process is writing the database (busy, not damaged)"

// Doctor checks the database: SQLite's integrity check, each full-text index
// against its table, the migration state and the WAL size. A check that
// finds the database busy retries for Options.Wait, then reports Busy.
func (db *DB) Doctor(ctx context.Context) []Check {
	db = db.WithWait(db.wait) // a copy: the checks wait once in all
	var checks []Check
	add := func(name string, ok bool, detail string) {
		checks = append(checks, Check{Name: name, OK: ok, Detail: detail})
	}
	failed := func(name string, err error) {
		if errors.Is(err, ErrBusy) {
			checks = append(checks, Check{Name: name, OK: true, Detail: BusyDetail, Busy: true})
			db.wait = 0 // waited once: the other checks do not wait again
			return
		}
		add(name, false, err.Error())
	}

	var rows []string
	if err := db.retry(ctx, func() error { return mapErr(db.x.SelectContext(ctx, &rows, `PRAGMA integrity_check`)) }); err != nil {
		failed("integrity", err)
	} else {
		add("integrity", len(rows) == 1 && rows[0] == "ok", strings.Join(rows, "; "))
	}

	for _, t := range ftsTables {
		// rank 1 also compares the index with the content table. It is a
		// write: it waits for another writer, as writes do.
		_, err := db.change(ctx, fmt.Sprintf(`INSERT INTO %s (%s, rank) VALUES ('integrity-check', 1)`, t, t))
		if err != nil {
			failed("fts "+t, err)
		} else {
			add("fts "+t, true, "ok")
		}
	}

	var st MigrationState
	if err := db.retry(ctx, func() (err error) { st, err = db.Migrations(ctx); return err }); err != nil {
		failed("migrations", err)
	} else {
		add("migrations", st.Current == st.Latest, fmt.Sprintf("schema version %d of %d", st.Current, st.Latest))
	}

	wal := fileSize(db.path + "-wal")
	add("wal", wal < walWarnBytes, fmt.Sprintf("%d bytes", wal))
	return checks
}
