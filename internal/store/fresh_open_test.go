package store

import (
	"bytes"
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/memory"
)

// TestEightProcessesOpenOneFreshFile starts eight processes (this test
// binary, re-run as a helper) that each open and migrate the same new file;
// they are released together by closing their stdin. All must succeed.
func TestEightProcessesOpenOneFreshFile(t *testing.T) {
	for round := range 3 {
		path := filepath.Join(t.TempDir(), "fresh", "mem.db")
		cmds := make([]*exec.Cmd, 8)
		gates := make([]io.WriteCloser, 8)
		outs := make([][]byte, 8)
		errs := make([]error, 8)
		done := make(chan int)
		for i := range cmds {
			c := exec.Command(os.Args[0], "-test.run=^TestOpenHelperProcess$")
			c.Env = append(os.Environ(), "MEM_STORE_OPEN_HELPER="+path)
			gate, err := c.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out := &bytes.Buffer{}
			c.Stdout, c.Stderr = out, out
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds[i], gates[i] = c, gate
			go func() {
				errs[i] = c.Wait()
				outs[i] = out.Bytes()
				done <- i
			}()
		}
		for _, g := range gates {
			g.Close()
		}
		for range cmds {
			<-done
		}
		for i := range cmds {
			if errs[i] != nil {
				t.Errorf("round %d, process %d: %v\n%s", round, i, errs[i], outs[i])
			}
		}
		db, err := Open(context.Background(), path, Options{NoMigrate: true})
		if err != nil {
			t.Fatal(err)
		}
		st, err := db.Migrations(context.Background())
		var sessions int
		if err := db.x.Get(&sessions, `SELECT count(*) FROM sessions`); err != nil || sessions != 8 {
			t.Errorf("round %d: %d sessions written (%v), want 8", round, sessions, err)
		}
		db.Close()
		if err != nil || st.Current != st.Latest {
			t.Errorf("round %d: migration state %+v (%v)", round, st, err)
		}
	}
}

// TestOpenHelperProcess is the child of TestEightProcessesOpenOneFreshFile:
// it waits for its stdin to close, then opens the database and writes.
func TestOpenHelperProcess(t *testing.T) {
	path := os.Getenv("MEM_STORE_OPEN_HELPER")
	if path == "" {
		t.Skip("helper process only")
	}
	io.Copy(io.Discard, os.Stdin)
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	defer db.Close()
	s := memory.Session{ID: fmt.Sprintf("p%d", os.Getpid()), Project: "p", StartedAt: time.UnixMilli(1_700_000_000_000)}
	if _, err := db.EnsureSession(ctx, s); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
}

// Every change to the schema is made while the migration lock is held, on a
// new file and on one another process has already switched to WAL mode (it
// then skips the lock at open and takes it to migrate). Goose's pending
// check creates its version table before its own locker runs, which let a
// process create that table while another one made the file.
func TestSchemaChangedOnlyUnderMigrationLock(t *testing.T) {
	for _, walFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("wal-first=%v", walFirst), func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "mem.db")
			if walFirst {
				db, err := Open(ctx, path, Options{NoMigrate: true})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.userVersion(ctx); err != nil { // connects: WAL mode
					t.Fatal(err)
				}
				db.Close()
				if !inWALMode(path) {
					t.Fatal("the file is not in WAL mode")
				}
			}
			var mu sync.Mutex
			var unlocked []string
			probe := func(query string) {
				if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(query)), "CREATE") {
					return
				}
				f, err := fsafe.OpenLock(path + ".migrate-lock")
				if err != nil {
					t.Error(err)
					return
				}
				defer f.Close()
				if free, _ := fsafe.TryLock(f); free {
					mu.Lock()
					unlocked = append(unlocked, strings.Fields(query)[2])
					mu.Unlock()
				}
			}
			db, err := Open(ctx, path, Options{Connector: func(k driver.Connector) driver.Connector { return probeConnector{k, probe} }})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if v, _ := db.userVersion(ctx); v != SchemaVersion() {
				t.Fatalf("schema version %d, want %d", v, SchemaVersion())
			}
			if len(unlocked) > 0 {
				t.Errorf("created without the migration lock: %v", unlocked)
			}
		})
	}
}

// probeConnector calls probe with each statement its connections run.
type probeConnector struct {
	driver.Connector
	probe func(query string)
}

func (k probeConnector) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := k.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return probeConn{c.(probedConn), k.probe}, nil
}

type probedConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
}

type probeConn struct {
	probedConn
	probe func(string)
}

func (c probeConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.probe(q)
	return c.probedConn.ExecContext(ctx, q, args)
}

func (c probeConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.probe(q)
	return c.probedConn.PrepareContext(ctx, q)
}

func (c probeConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.probe(q)
	return c.probedConn.QueryContext(ctx, q, args)
}
