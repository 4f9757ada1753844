// Command openfloor is the second floor scripts/bench reports: what any mem
// command that reads the database pays before its own work. It opens the
// file as mem does (the same driver and DSN: WAL, busy timeout, mmap),
// reads the schema version and runs one statement, then exits.
//
//	openfloor --db PATH               one indexed lookup (SQLite parses the schema)
//	openfloor --db PATH --match WORD  one FTS5 MATCH of a word on observations_fts
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"

	_ "modernc.org/sqlite"

	"github.com/memhq/mem/internal/store"
)

func main() {
	db := flag.String("db", "", "the database")
	match := flag.String("match", "", "run one FTS5 MATCH of this word instead of an indexed lookup")
	flag.Parse()
	if err := run(*db, *match); err != nil {
		fmt.Fprintln(os.Stderr, "openfloor:", err)
		os.Exit(1)
	}
}

func run(path, word string) error {
	x, err := sql.Open("sqlite", store.DSN(path, 5000))
	if err != nil {
		return err
	}
	defer x.Close()
	var v, n int64
	if err := x.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	q, args := "SELECT count(*) FROM sessions WHERE id = 'none'", []any{}
	if word != "" {
		q, args = "SELECT count(*) FROM (SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? LIMIT 20)", []any{word}
	}
	if err := x.QueryRow(q, args...).Scan(&n); err != nil {
		return err
	}
	fmt.Println(v, n)
	return nil
}
