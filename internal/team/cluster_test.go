package team_test

// Tests against a real three-node rqlite cluster on 127.0.0.1, with mem run
// as separate processes (one database each). They need rqlited: RQLITED,
// or rqlited on PATH; without it they are skipped and say so.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memhq/mem/internal/store"
)

var memBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mem-team-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	memBin = filepath.Join(dir, "mem")
	build := exec.Command("go", "build", "-o", dir, "github.com/memhq/mem/cmd/mem", "github.com/memhq/mem/cmd/mem-full") // mem hands sync to mem-full
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building mem: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// rqlited returns the rqlited binary or skips the test.
func rqlited(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("RQLITED"); p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("RQLITED=%s: %v", p, err)
		}
		return p
	}
	if p, err := exec.LookPath("rqlited"); err == nil {
		return p
	}
	t.Skip("SKIPPED: no rqlite server: set RQLITED (for example ../shared/bin/rqlited) or put rqlited on PATH")
	return ""
}

type node struct {
	id        int
	http      string // 127.0.0.1:port
	raft      string
	dir       string
	args      []string
	cmd       *exec.Cmd
	done      chan struct{}
	logs      *bytes.Buffer
	logsMu    sync.Mutex
	suspended bool
}

type cluster struct {
	t     testing.TB
	bin   string
	nodes []*node
	auth  string // auth file, if any
	user  string
	pass  string
}

// freePort returns a port no other part of this test run has been given and
// nothing listens on. It is drawn below the kernel's ephemeral range: a port
// from a listen on :0 is free only until the kernel hands it out again, to an
// outgoing connection or another :0 listen, which happened between the check
// and rqlited's bind. Below that range only an explicit bind can take it.
func freePort(t testing.TB) int {
	t.Helper()
	lo := ephemeralLow()
	portsMu.Lock()
	defer portsMu.Unlock()
	for tries := 0; tries < 1000; tries++ {
		p := 10000 + rand.IntN(lo-10000)
		if portsGiven[p] {
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		l.Close()
		portsGiven[p] = true
		return p
	}
	t.Fatal("no free port below the ephemeral range")
	return 0
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// default 32768 where it cannot be read).
func ephemeralLow() int {
	lo := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 11000 {
				lo = n
			}
		}
	}
	return lo
}

// startCluster starts n nodes (the first bootstraps, the others join) and
// waits until every node knows the leader. With user set, the nodes require
// basic auth (rqlite -auth) and that user has every permission.
func startCluster(t testing.TB, n int, user, pass string) *cluster {
	t.Helper()
	c := &cluster{t: t, bin: rqlited(t), user: user, pass: pass}
	base := t.TempDir()
	if user != "" {
		c.auth = filepath.Join(base, "auth.json")
		b, _ := json.Marshal([]map[string]any{{"username": user, "password": pass, "perms": []string{"all"}}})
		if err := os.WriteFile(c.auth, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= n; i++ {
		nd := &node{id: i, http: fmt.Sprintf("127.0.0.1:%d", freePort(t)), raft: fmt.Sprintf("127.0.0.1:%d", freePort(t)),
			dir: filepath.Join(base, fmt.Sprintf("node%d", i))}
		nd.args = []string{"-node-id", fmt.Sprint(i), "-http-addr", nd.http, "-raft-addr", nd.raft}
		if c.auth != "" {
			nd.args = append(nd.args, "-auth", c.auth, "-join-as", user)
		}
		if i > 1 {
			nd.args = append(nd.args, "-join", c.nodes[0].raft)
		}
		nd.args = append(nd.args, nd.dir)
		c.nodes = append(c.nodes, nd)
		c.start(nd)
		if i == 1 {
			c.waitReady(nd)
		}
	}
	for _, nd := range c.nodes {
		c.waitReady(nd)
	}
	t.Cleanup(func() {
		for _, nd := range c.nodes {
			c.kill(nd)
		}
	})
	return c
}

func (c *cluster) start(nd *node) {
	c.t.Helper()
	nd.cmd = exec.Command(c.bin, nd.args...)
	nd.logs = &bytes.Buffer{}
	w := &lockedWriter{mu: &nd.logsMu, w: nd.logs}
	nd.cmd.Stdout, nd.cmd.Stderr = w, w
	if err := nd.cmd.Start(); err != nil {
		c.t.Fatalf("starting rqlited node %d: %v", nd.id, err)
	}
	nd.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		_ = cmd.Wait()
		close(done)
	}(nd.cmd, nd.done)
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// kill stops a node with SIGKILL and waits for it to be gone.
func (c *cluster) kill(nd *node) {
	if nd.cmd == nil || nd.cmd.Process == nil {
		return
	}
	if nd.suspended {
		_ = nd.cmd.Process.Signal(syscall.SIGCONT)
		nd.suspended = false
	}
	_ = nd.cmd.Process.Kill()
	<-nd.done
	nd.cmd = nil
}

// stop stops a node cleanly (SIGTERM) and waits for it to be gone.
func (c *cluster) stop(nd *node) {
	if nd.cmd == nil {
		return
	}
	_ = nd.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-nd.done:
	case <-time.After(20 * time.Second):
		c.kill(nd)
	}
	nd.cmd = nil
}

func (c *cluster) get(nd *node, path string) (*http.Response, error) {
	req, _ := http.NewRequest(http.MethodGet, "http://"+nd.http+path, nil)
	if c.user != "" {
		req.SetBasicAuth(c.user, c.pass)
	}
	cl := &http.Client{Timeout: 2 * time.Second}
	return cl.Do(req)
}

// waitReady waits until a node answers /readyz (it has a leader).
func (c *cluster) waitReady(nd *node) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-nd.done:
			c.t.Fatalf("rqlited node %d exited:\n%s", nd.id, nd.output())
		default:
		}
		if resp, err := c.get(nd, "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("rqlited node %d not ready after 30s:\n%s", nd.id, nd.output())
}

func (nd *node) output() string {
	nd.logsMu.Lock()
	defer nd.logsMu.Unlock()
	s := nd.logs.String()
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return s
}

// leader returns the node that leads now.
func (c *cluster) leader() *node {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, nd := range c.nodes {
			if nd.cmd == nil {
				continue
			}
			resp, err := c.get(nd, "/status")
			if err != nil {
				continue
			}
			var st struct {
				Store struct {
					Raft struct {
						State string `json:"state"`
					} `json:"raft"`
				} `json:"store"`
			}
			err = json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
			if err == nil && st.Store.Raft.State == "Leader" {
				return nd
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatal("no leader after 30s")
	return nil
}

// urls lists the nodes' addresses, first from first.
func (c *cluster) urls(first ...*node) string {
	var out []string
	for _, nd := range first {
		out = append(out, "http://"+nd.http)
	}
	for _, nd := range c.nodes {
		u := "http://" + nd.http
		dup := false
		for _, o := range out {
			dup = dup || o == u
		}
		if !dup {
			out = append(out, u)
		}
	}
	return strings.Join(out, ",")
}

// query runs one read on the cluster (any live node, strong consistency)
// and returns its rows.
func (c *cluster) query(q string, args ...any) [][]any {
	c.t.Helper()
	body, _ := json.Marshal([][]any{append([]any{q}, args...)})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if rows, ok := c.tryQuery(q, body); ok {
			return rows
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatalf("no node answered %s for 30s", q)
	return nil
}

func (c *cluster) tryQuery(q string, body []byte) ([][]any, bool) {
	c.t.Helper()
	for _, nd := range c.nodes {
		if nd.cmd == nil || nd.suspended {
			continue
		}
		req, _ := http.NewRequest(http.MethodPost, "http://"+nd.http+"/db/query?level=strong", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if c.user != "" {
			req.SetBasicAuth(c.user, c.pass)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			continue
		}
		var r struct {
			Results []struct {
				Values [][]any `json:"values"`
				Error  string  `json:"error"`
			} `json:"results"`
		}
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil || len(r.Results) != 1 {
			continue
		}
		if e := r.Results[0].Error; e != "" {
			if strings.Contains(e, "leader") || strings.Contains(e, "no such table") {
				continue
			}
			c.t.Fatalf("cluster query %s: %s", q, e)
		}
		return r.Results[0].Values, true
	}
	return nil, false
}

func (c *cluster) count(q string, args ...any) int {
	c.t.Helper()
	rows := c.query(q, args...)
	if len(rows) != 1 || len(rows[0]) != 1 {
		c.t.Fatalf("%s: %v", q, rows)
	}
	return int(rows[0][0].(float64))
}

// member is one machine: its own database, config file and home.
type member struct {
	t    testing.TB
	name string
	dir  string
	db   string
	env  []string
}

func newMember(t testing.TB, name string, c *cluster, urls string, password string) *member {
	t.Helper()
	dir := t.TempDir()
	m := &member{t: t, name: name, dir: dir, db: filepath.Join(dir, "mem.db")}
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m.env = []string{"HOME=" + dir, "MEM_CONFIG=" + cfg, "MEM_DB=" + m.db, "PATH=" + os.Getenv("PATH"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state")}
	args := []string{"remote", "set", urls}
	var in string
	if c.user != "" {
		args = append(args, "--user", c.user, "--password-stdin")
		in = password + "\n"
	}
	m.runIn(in, args...)
	return m
}

// setConfig appends lines to the member's config file.
func (m *member) setConfig(lines string) {
	m.t.Helper()
	f, err := os.OpenFile(filepath.Join(m.dir, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		m.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n" + lines); err != nil {
		m.t.Fatal(err)
	}
}

// run runs mem and fails the test on a non-zero exit.
func (m *member) run(args ...string) string { return m.runIn("", args...) }

func (m *member) runIn(stdin string, args ...string) string {
	m.t.Helper()
	out, errOut, code := m.try(stdin, args...)
	if code != 0 {
		m.t.Fatalf("%s: mem %s: exit %d\n%s%s", m.name, strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// runState runs mem, fails the test on a non-zero exit, and returns the
// process's state (for its CPU time).
func (m *member) runState(args ...string) *os.ProcessState {
	m.t.Helper()
	cmd := exec.Command(memBin, args...)
	cmd.Env, cmd.Dir = m.env, m.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		m.t.Fatalf("%s: mem %s: %v\n%s", m.name, strings.Join(args, " "), err, out)
	}
	return cmd.ProcessState
}

// try runs mem and returns its output and exit code.
func (m *member) try(stdin string, args ...string) (string, string, int) {
	cmd := exec.Command(memBin, args...)
	cmd.Env = m.env
	cmd.Dir = m.dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		m.t.Fatalf("%s: running mem: %v", m.name, err)
	}
	return out.String(), errOut.String(), code
}

// importObservations writes a session with n observations into project p,
// each with a unique word w<tag>x<i> in its title.
func (m *member) importObservations(p, session, tag string, n int) {
	m.t.Helper()
	var b strings.Builder
	now := time.Now().UTC()
	fmt.Fprintf(&b, `{"kind":"session","id":%q,"project":%q,"agent":"claude-code","started_at":%q,"last_activity_at":%q,"status":"active"}`+"\n",
		session, p, now.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano))
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"kind":"observation","uuid":"%s-%s-%06d","session_id":%q,"project":%q,"type":"decision","title":"decided w%sx%d about the build","narrative":"member %s record %d: the cache key includes the toolchain version","facts":["fact %d"],"created_at":%q}`+"\n",
			tag, session, i, session, p, tag, i, m.name, i, i, now.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano))
	}
	f := filepath.Join(m.dir, "in-"+session+".jsonl")
	if err := os.WriteFile(f, []byte(b.String()), 0o600); err != nil {
		m.t.Fatal(err)
	}
	m.run("import", f)
}

// open opens the member's database to check it (no process of the member
// runs then).
func (m *member) open() *store.DB {
	m.t.Helper()
	db, err := store.Open(context.Background(), m.db, store.Options{})
	if err != nil {
		m.t.Fatal(err)
	}
	m.t.Cleanup(func() { db.Close() })
	return db
}

func (m *member) count(q string, args ...any) int {
	m.t.Helper()
	db := m.open()
	defer db.Close()
	var n int
	if err := db.SQL().Get(&n, q, args...); err != nil {
		m.t.Fatalf("%s: %s: %v", m.name, q, err)
	}
	return n
}
