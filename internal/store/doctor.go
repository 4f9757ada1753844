package store

import (
	"context"
	"fmt"
	"strings"
)

// Check is one finding of Doctor.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// ftsTables are the full-text indexes kept by triggers.
var ftsTables = []string{"observations_fts", "summaries_fts", "prompts_fts"}

// walWarnBytes is the WAL size above which a checkpoint is overdue.
const walWarnBytes = 64 << 20

// Doctor checks the database: SQLite's integrity check, each full-text index
// against its table, the migration state and the WAL size.
func (db *DB) Doctor(ctx context.Context) []Check {
	var checks []Check
	add := func(name string, ok bool, detail string) {
		checks = append(checks, Check{Name: name, OK: ok, Detail: detail})
	}

	var rows []string
	if err := db.x.SelectContext(ctx, &rows, `PRAGMA integrity_check`); err != nil {
		add("integrity", false, mapErr(err).Error())
	} else {
		add("integrity", len(rows) == 1 && rows[0] == "ok", strings.Join(rows, "; "))
	}

	for _, t := range ftsTables {
		// rank 1 also compares the index with the content table.
		_, err := db.x.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %s (%s, rank) VALUES ('integrity-check', 1)`, t, t))
		if err != nil {
			add("fts "+t, false, mapErr(err).Error())
		} else {
			add("fts "+t, true, "ok")
		}
	}

	if st, err := db.Migrations(ctx); err != nil {
		add("migrations", false, err.Error())
	} else {
		add("migrations", st.Current == st.Latest, fmt.Sprintf("schema version %d of %d", st.Current, st.Latest))
	}

	wal := fileSize(db.path + "-wal")
	add("wal", wal < walWarnBytes, fmt.Sprintf("%d bytes", wal))
	return checks
}
