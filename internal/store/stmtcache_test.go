package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// openCounted opens a fresh database on one connection and returns the
// counter of its compilations.
func openCounted(t *testing.T) (*DB, *atomic.Int64) {
	t.Helper()
	n := &atomic.Int64{}
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "mem.db"), Options{
		// Every statement run or prepared on the driver's connection is
		// compiled anew.
		Connector: func(k driver.Connector) driver.Connector {
			return probeConnector{k, func(string) { n.Add(1) }}
		}})
	if err != nil {
		t.Fatal(err)
	}
	db.x.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.x.Exec(`CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return db, n
}

func TestAStatementRunAgainIsNotCompiledAgain(t *testing.T) {
	db, n := openCounted(t)
	n.Store(0)
	for i := range 10 {
		if _, err := db.x.Exec(`INSERT INTO t (k, v) VALUES (?, ?)`, i, fmt.Sprint("v", i)); err != nil {
			t.Fatal(err)
		}
		var v string
		if err := db.x.Get(&v, `SELECT v FROM t WHERE k = ?`, i); err != nil || v != fmt.Sprint("v", i) {
			t.Fatalf("row %d: %q, %v", i, v, err)
		}
	}
	if got := n.Load(); got != 2 {
		t.Errorf("20 runs of 2 statements compiled %d times, want 2", got)
	}
}

func TestAStatementRunWhileItsRowsAreOpen(t *testing.T) {
	db, _ := openCounted(t)
	for i := range 3 {
		db.x.MustExec(`INSERT INTO t (k, v) VALUES (?, ?)`, i, fmt.Sprint("v", i))
	}
	// One connection: the inner run needs its own compilation, and the outer
	// rows must go on where they were.
	db.x.SetMaxOpenConns(2)
	ctx := context.Background()
	conn, err := db.x.Connx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const q = `SELECT k, v FROM t WHERE k >= ? ORDER BY k`
	rows, err := conn.QueryxContext(ctx, q, 0)
	if err != nil {
		t.Fatal(err)
	}
	var outer []int
	for rows.Next() {
		var k int
		var v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		outer = append(outer, k)
		inner, err := conn.QueryxContext(ctx, q, k)
		if err != nil {
			t.Fatal(err)
		}
		m := 0
		for inner.Next() {
			m++
		}
		if err := inner.Close(); err != nil {
			t.Fatal(err)
		}
		if m != 3-k {
			t.Errorf("inner run from %d: %d rows, want %d", k, m, 3-k)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if fmt.Sprint(outer) != "[0 1 2]" {
		t.Errorf("outer rows %v, want [0 1 2]", outer)
	}
	// The cached statement is free again.
	var c int
	if err := conn.GetContext(ctx, &c, `SELECT count(*) FROM t WHERE k >= ?`, 0); err != nil || c != 3 {
		t.Fatalf("count %d, %v", c, err)
	}
}

func TestTheStatementCacheIsBounded(t *testing.T) {
	db, n := openCounted(t)
	n.Store(0)
	for i := range stmtCacheSize + 10 {
		var v int
		if err := db.x.Get(&v, fmt.Sprintf(`SELECT %d`, i)); err != nil || v != i {
			t.Fatalf("SELECT %d: %d, %v", i, v, err)
		}
	}
	var v int
	if err := db.x.Get(&v, `SELECT 0`); err != nil || v != 0 {
		t.Fatalf("SELECT 0: %d, %v", v, err)
	}
	if got, want := n.Load(), int64(stmtCacheSize+11); got != want {
		t.Errorf("%d statements compiled %d times, want %d (the oldest evicted)", stmtCacheSize+11, got, want)
	}
	if err := db.Close(); err != nil {
		t.Errorf("closing with cached statements: %v", err)
	}
}

func TestACachedStatementAfterTheSchemaChanged(t *testing.T) {
	db, _ := openCounted(t)
	db.x.MustExec(`INSERT INTO t (k, v) VALUES (1, 'a')`)
	cols := func() int {
		rows, err := db.x.Queryx(`SELECT * FROM t`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		c, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		return len(c)
	}
	if c := cols(); c != 2 {
		t.Fatalf("%d columns, want 2", c)
	}
	db.x.MustExec(`ALTER TABLE t ADD COLUMN w TEXT`)
	if c := cols(); c != 3 {
		t.Errorf("after adding a column: %d columns, want 3", c)
	}
}

func TestACachedStatementAfterItFailed(t *testing.T) {
	db, _ := openCounted(t)
	const q = `INSERT INTO t (k, v) VALUES (?, ?)`
	db.x.MustExec(q, 1, "a")
	if _, err := db.x.Exec(q, 1, "b"); err == nil {
		t.Fatal("a duplicate key was inserted")
	}
	if _, err := db.x.Exec(q, 2, "b"); err != nil {
		t.Fatalf("the statement after its failure: %v", err)
	}
	var c int
	if err := db.x.Get(&c, `SELECT count(*) FROM t`); err != nil || c != 2 {
		t.Fatalf("%d rows, %v; want 2", c, err)
	}
}
