package cli

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
)

// TestTransactionsPerCall counts, through a wrapper of the database driver,
// the transactions each call takes: every recorded event of every agent
// (internal/e2e/testdata/events), handled twice (the second time it is the
// same event again), takes at most one write transaction and one read
// transaction and no savepoint; mem inject, mem search, mem get and mem
// timeline read one snapshot and write nothing, not even an event a hook
// spooled; mem session show and list, stats and export write nothing
// either. A statement run outside a transaction is a transaction
// of its own and counts as one.
func TestTransactionsPerCall(t *testing.T) {
	dir := t.TempDir()
	env := dirEnv(dir)
	events := filepath.Join("..", "e2e", "testdata", "events")
	agents, err := os.ReadDir(events)
	if err != nil {
		t.Fatal(err)
	}
	// The database is made and migrated before anything is counted.
	if code, _, stderr := run(t, env, "init"); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	call := countedCalls(t, env, nil)
	for pass := 1; pass <= 2; pass++ {
		for _, a := range agents {
			if !a.IsDir() {
				continue
			}
			agent := a.Name()
			for _, f := range eventFiles(t, filepath.Join(events, agent)) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				n, _ := call(string(data), "hook", agent)
				t.Logf("pass %d %s %s: %s", pass, agent, filepath.Base(f), n)
				if n.writes() > 1 || n.reads() > 1 || n.savepoints > 0 {
					t.Errorf("pass %d: mem hook %s < %s: %s; want at most 1 write and 1 read transaction, no savepoint",
						pass, agent, filepath.Base(f), n)
				}
			}
		}
	}
	// A session's detail comes from one snapshot (with nothing spooled, mem
	// session show has nothing to apply first).
	if n, out := call("", "session", "show", "5680a20f-fa28-4d00-8c7f-56e87cedd613"); n.writes() != 0 || n.reads() != 1 || out == "" {
		t.Errorf("mem session show: %s, printed %d bytes; want 1 read transaction and no write", n, len(out))
	}
	// What a person records comes with its session in one transaction.
	for _, args := range [][]string{
		{"observe", "--session", "by-hand", "--type", "note", "--title", "a note by hand"},
		{"prompt", "--session", "by-hand", "--text", "a prompt by hand"},
	} {
		if n, _ := call("", args...); n.writes() != 1 || n.savepoints > 0 {
			t.Errorf("mem %s: %s; want 1 write transaction", strings.Join(args, " "), n)
		}
	}
	// A summary is read from one snapshot and stored in one transaction.
	if n, _ := call("", "summarize", "--session", "by-hand"); n.writes() != 1 || n.reads() != 1 {
		t.Errorf("mem summarize --session: %s; want 1 read and 1 write transaction", n)
	}
	// An event spooled while the database was locked waits for the next
	// hook or writing command: a read command leaves it there.
	lock, err := sql.Open("sqlite", store.DSN(env["MEM_DB"], 1000))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	conn, err := lock.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	env["MEM_HOOK_DEADLINE"] = "300ms"
	prompt, err := os.ReadFile(filepath.Join(events, "claude", "UserPromptSubmit.json"))
	if err != nil {
		t.Fatal(err)
	}
	call(string(prompt), "hook", "claude")
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	sp := spool.Beside(env["MEM_DB"])
	if n, _, _ := sp.Len(); n != 1 {
		t.Fatalf("%d events spooled while the database was locked, want 1", n)
	}
	for _, args := range [][]string{
		{"inject"},
		{"inject", "--format", "pretty"},
		{"search", "discount"},
		{"search", "--json", "discount"},
		{"get", "1"},
		{"timeline", "--around", "1"},
	} {
		n, out := call("", args...)
		t.Logf("mem %s: %s", strings.Join(args, " "), n)
		if out == "" {
			t.Errorf("mem %s printed nothing: the events were not recorded", strings.Join(args, " "))
		}
		if n.writes() != 0 || n.reads() != 1 || n.savepoints > 0 {
			t.Errorf("mem %s: %s; want 1 read transaction and no write", strings.Join(args, " "), n)
		}
		if n, _, _ := sp.Len(); n != 1 {
			t.Errorf("after mem %s: %d events spooled, want the 1 still waiting", strings.Join(args, " "), n)
		}
	}
	// The other commands that read write nothing either: mem session show
	// shows the spooled event as pending instead of applying it.
	session := "5f9cdab4-9ee1-49ac-9dce-2bd3b7b90216" // the spooled prompt's
	for _, args := range [][]string{
		{"session", "show", session},
		{"session", "show", "--json", session},
		{"session", "list"},
		{"stats"},
		{"stats", "--json"},
		{"export"},
	} {
		n, out := call("", args...)
		t.Logf("mem %s: %s", strings.Join(args, " "), n)
		if n.writes() != 0 || n.savepoints > 0 {
			t.Errorf("mem %s: %s; want no write", strings.Join(args, " "), n)
		}
		if n, _, _ := sp.Len(); n != 1 {
			t.Errorf("after mem %s: %d events spooled, want the 1 still waiting", strings.Join(args, " "), n)
		}
		if args[0] == "session" && args[1] == "show" && !strings.Contains(out, "UserPromptSubmit") {
			t.Errorf("mem %s does not show the spooled prompt as pending:\n%s", strings.Join(args, " "), out)
		}
	}
}

// eventFiles lists an agent's recorded events, those that start a session
// first and those that end one last.
func eventFiles(t *testing.T, dir string) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	rank := func(f string) int {
		n := strings.ToLower(filepath.Base(f))
		switch {
		case strings.HasPrefix(n, "sessionstart"), strings.HasPrefix(n, "session.created"):
			return 0
		case strings.HasPrefix(n, "sessionend"), strings.HasPrefix(n, "session.idle"):
			return 2
		}
		return 1
	}
	var files []string
	for _, f := range all {
		if !strings.HasSuffix(f, ".reply.json") {
			files = append(files, f)
		}
	}
	slices.SortStableFunc(files, func(a, b string) int { return rank(a) - rank(b) })
	return files
}

// dirEnv is an environment with everything of mem under dir: its home,
// database and state folder, and the project p.
func dirEnv(dir string) map[string]string {
	return map[string]string{"HOME": dir, "MEM_DB": filepath.Join(dir, "mem.db"), "MEM_PROJECT": "p",
		"XDG_STATE_HOME": filepath.Join(dir, "state")}
}

// countedCalls returns a function that runs mem with env (and getwd, when
// not nil) and counts the transactions of each call.
func countedCalls(t *testing.T, env map[string]string, getwd func() (string, error)) func(stdin string, args ...string) (txCount, string) {
	c := &txCounter{}
	return func(stdin string, args ...string) (txCount, string) {
		t.Helper()
		var out, errb bytes.Buffer
		app := NewApp(strings.NewReader(stdin), &out, &errb)
		app.Getenv = func(k string) string { return env[k] }
		if getwd != nil {
			app.Getwd = getwd
		}
		app.connector = c.wrap
		c.reset()
		if code := Main(context.Background(), app, args); code != 0 {
			t.Fatalf("mem %v: exit %d: %s", args, code, errb.String())
		}
		if s := errb.String(); s != "" {
			t.Logf("mem %v: stderr %s", args, s)
		}
		return c.take(), out.String()
	}
}

// txCount is what one call did to the database.
type txCount struct {
	writeTx, readTx int // BEGIN IMMEDIATE, read-only BEGIN
	plainWrites     int // writing statements outside a transaction
	plainReads      int // reading statements outside a transaction
	savepoints      int // SAVEPOINT inside a transaction
}

func (n txCount) writes() int { return n.writeTx + n.plainWrites }
func (n txCount) reads() int  { return n.readTx + n.plainReads }

func (n txCount) String() string {
	return fmt.Sprintf("%d write transactions (%d single statements), %d read transactions (%d single statements), %d savepoints",
		n.writes(), n.plainWrites, n.reads(), n.plainReads, n.savepoints)
}

// txCounter wraps the driver's connector and counts transactions.
type txCounter struct {
	mu sync.Mutex
	n  txCount
}

func (c *txCounter) reset() {
	c.mu.Lock()
	c.n = txCount{}
	c.mu.Unlock()
}

func (c *txCounter) take() txCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *txCounter) add(f func(*txCount)) {
	c.mu.Lock()
	f(&c.n)
	c.mu.Unlock()
}

func (c *txCounter) wrap(k driver.Connector) driver.Connector { return countConnector{k, c} }

// statement counts a statement run on a connection: outside a transaction
// it is one of its own (a PRAGMA is left out: opening the database reads
// the schema version that way, and the hook's WAL checkpoint is no
// transaction); inside one only a SAVEPOINT counts.
func (c *txCounter) statement(inTx bool, query string) {
	word, rest, _ := strings.Cut(strings.TrimSpace(query), " ")
	word = strings.ToUpper(word)
	c.add(func(n *txCount) {
		switch {
		case inTx && word == "SAVEPOINT":
			n.savepoints++
		case inTx, word == "PRAGMA":
		case word == "SELECT", word == "WITH" && !writes(rest):
			n.plainReads++
		default:
			n.plainWrites++
		}
	})
}

func writes(query string) bool {
	q := strings.ToUpper(query)
	return strings.Contains(q, "INSERT ") || strings.Contains(q, "UPDATE ") || strings.Contains(q, "DELETE ")
}

type countConnector struct {
	driver.Connector
	c *txCounter
}

func (k countConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := k.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countConn{inner: conn.(innerConn), c: k.c}, nil
}

// innerConn is what the wrapped driver's connections do.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

type countConn struct {
	inner innerConn
	c     *txCounter
	inTx  bool
}

func (cc *countConn) Prepare(q string) (driver.Stmt, error) {
	return cc.PrepareContext(context.Background(), q)
}
func (cc *countConn) Close() error { return cc.inner.Close() }
func (cc *countConn) Begin() (driver.Tx, error) {
	return cc.BeginTx(context.Background(), driver.TxOptions{})
}
func (cc *countConn) Ping(ctx context.Context) error {
	return cc.inner.Ping(ctx)
}
func (cc *countConn) ResetSession(ctx context.Context) error { return cc.inner.ResetSession(ctx) }
func (cc *countConn) IsValid() bool                          { return cc.inner.IsValid() }

func (cc *countConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := cc.inner.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	cc.c.add(func(n *txCount) {
		if opts.ReadOnly {
			n.readTx++
		} else {
			n.writeTx++
		}
	})
	cc.inTx = true
	return countTx{tx, cc}, nil
}

func (cc *countConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	s, err := cc.inner.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return countStmt{s.(innerStmt), cc, q}, nil
}

func (cc *countConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	cc.c.statement(cc.inTx, q)
	return cc.inner.ExecContext(ctx, q, args)
}

func (cc *countConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	cc.c.statement(cc.inTx, q)
	return cc.inner.QueryContext(ctx, q, args)
}

type countTx struct {
	driver.Tx
	cc *countConn
}

func (t countTx) Commit() error {
	t.cc.inTx = false
	return t.Tx.Commit()
}

func (t countTx) Rollback() error {
	t.cc.inTx = false
	return t.Tx.Rollback()
}

type innerStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

type countStmt struct {
	innerStmt
	cc *countConn
	q  string
}

func (s countStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.cc.c.statement(s.cc.inTx, s.q)
	return s.innerStmt.ExecContext(ctx, args)
}

func (s countStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.cc.c.statement(s.cc.inTx, s.q)
	return s.innerStmt.QueryContext(ctx, args)
}
