package store

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files and schema.sql")

// TestSchemaFile fails when the migrations and schema.sql disagree; run
// scripts/schema (go test -run TestSchemaFile -update) to regenerate it.
// The migrations run one by one here, as they bring an older file up to
// date; a new file is made by schema.sql itself (TestNewFileAsMigrated).
func TestSchemaFile(t *testing.T) {
	db := openStepwise(t)
	got, err := db.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "migrations", "schema.sql")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading schema.sql: %v (run scripts/schema)", err)
	}
	if string(want) != got {
		t.Errorf("schema.sql does not match the migrations; run scripts/schema\n--- migrations give:\n%s", got)
	}
}

func openStepwise(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "mem.db"), Options{stepwise: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestNewFileAsMigrated: a new database made by schema.sql in one
// transaction is the one the migrations make one by one: every object of
// sqlite_schema (FTS5 shadow tables included) with its SQL, the FTS5
// tables' options, goose's record of the applied migrations, the schema
// version, and no row anywhere else.
func TestNewFileAsMigrated(t *testing.T) {
	ctx := context.Background()
	state := func(db *DB) string {
		t.Helper()
		var b strings.Builder
		var objs []struct {
			Type, Name, SQL string
			Tbl             string `db:"tbl_name"`
		}
		if err := db.x.SelectContext(ctx, &objs, `SELECT type, name, tbl_name, coalesce(sql, '') AS sql FROM sqlite_schema ORDER BY type, name`); err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			fmt.Fprintf(&b, "%s %s on %s: %s\n", o.Type, o.Name, o.Tbl, o.SQL)
			if o.Type != "table" || strings.HasPrefix(strings.ToUpper(o.SQL), "CREATE VIRTUAL") {
				continue
			}
			var rows []string
			q := fmt.Sprintf(`SELECT quote(t.rowid) FROM %q t`, o.Name)
			switch {
			case strings.HasSuffix(o.Name, "_config"):
				q = fmt.Sprintf(`SELECT k || '=' || quote(v) FROM %q ORDER BY k`, o.Name)
			case o.Name == "goose_db_version":
				q = `SELECT version_id || ' ' || is_applied FROM goose_db_version ORDER BY id`
			case o.Name == "sqlite_sequence":
				q = `SELECT name || ' ' || seq FROM sqlite_sequence ORDER BY name`
			case strings.Contains(o.SQL, "WITHOUT ROWID"):
				q = fmt.Sprintf(`SELECT 'row' FROM %q`, o.Name)
			}
			if err := db.x.SelectContext(ctx, &rows, q); err != nil {
				t.Fatalf("%s: %v", o.Name, err)
			}
			fmt.Fprintf(&b, "  rows: %s\n", strings.Join(rows, ", "))
		}
		var v int
		if err := db.x.GetContext(ctx, &v, "PRAGMA user_version"); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "user_version %d\n", v)
		return b.String()
	}
	stepwise, made := state(openStepwise(t)), state(openTest(t))
	if made != stepwise {
		t.Errorf("a new file made by schema.sql differs from the migrations' one:\n--- schema.sql:\n%s\n--- migrations:\n%s", made, stepwise)
	}
	if !strings.Contains(made, "goose_db_version") || !strings.Contains(made, "automerge=0") {
		t.Errorf("the comparison misses goose's table or the FTS5 options:\n%s", made)
	}
}
