package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite"

	"github.com/memhq/mem/internal/store"
)

// hookCmds are the script commands the hook tests need beyond exec.
func hookCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(*testscript.TestScript, bool, []string){
		"bigevent":  cmdBigEvent,
		"lockdb":    cmdLockDB,
		"unlockdb":  cmdUnlockDB,
		"hookstorm": cmdHookStorm,
		"envq":      cmdEnvQ,
		"dbgrep":    cmdDBGrep,
		"treesum":   cmdTreeSum,
		"onlypath":  cmdOnlyPath,
		"underload": cmdUnderLoad,
		"claudedir": cmdClaudeDir,
		"subst":     cmdSubst,
	}
}

// bigevent FILE KIND BYTES writes a Claude Code event carrying BYTES of text:
// KIND bash (a failing command's output), prompt, private-line (stderr of
// BYTES 'x' then a private part on the same line) or private-middle (a
// failing command's output of about BYTES with a private part that opens
// 1,000 bytes before its middle).
func cmdBigEvent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: bigevent FILE bash|prompt|private-line|private-middle BYTES")
	}
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	filler := strings.Repeat("x", n)
	const private = "<private>\nError: secret hunter2\n</private>"
	bash := func(stdout, stderr string) map[string]any {
		return map[string]any{"session_id": "big", "cwd": "/w", "hook_event_name": "PostToolUse", "tool_name": "Bash",
			"tool_input":    map[string]any{"command": "make build"},
			"tool_response": map[string]any{"stdout": stdout, "stderr": stderr}}
	}
	lines := func(n int) string { return strings.Repeat("ok\n", n/3) }
	var ev map[string]any
	switch args[1] {
	case "bash":
		ev = bash(filler+"\nmain.go:3:2: undefined: frobnicate\n", "")
	case "private-line":
		ev = bash("", filler+private)
	case "private-middle":
		ev = bash(lines(n/2-1000)+"<private>\n"+lines(2000)+"\nError: secret hunter2\n</private>\n"+lines(n/2-1000)+"main.go:3:2: undefined: frobnicate\n", "")
	case "prompt":
		ev = map[string]any{"session_id": "big", "cwd": "/w", "hook_event_name": "UserPromptSubmit", "prompt": "héllo " + filler}
	default:
		ts.Fatalf("bigevent: unknown kind %s", args[1])
	}
	b, err := json.Marshal(ev)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
}

// lockdb DB holds a write lock on the database until the script ends.
func cmdLockDB(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: lockdb DB")
	}
	db, err := sql.Open("sqlite", store.DSN(ts.MkAbs(args[0]), 1000))
	ts.Check(err)
	conn, err := db.Conn(context.Background())
	ts.Check(err)
	_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
	ts.Check(err)
	var once sync.Once
	release := func() {
		once.Do(func() {
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			db.Close()
		})
	}
	locks.Store(ts.MkAbs(args[0]), release)
	ts.Defer(release)
}

// locks holds the release of each lockdb, by database path.
var locks sync.Map

// unlockdb DB releases the lock lockdb took.
func cmdUnlockDB(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: unlockdb DB")
	}
	release, ok := locks.LoadAndDelete(ts.MkAbs(args[0]))
	if !ok {
		ts.Fatalf("unlockdb: %s is not locked", args[0])
	}
	release.(func())()
}

// hookstorm N AGENT EVENT... runs N `mem hook AGENT` processes at once, the
// i-th reading EVENT with every "{i}" replaced by i. Each must exit 0 within
// the hook deadline (MEM_HOOK_DEADLINE) plus process start-up slack.
func cmdHookStorm(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 {
		ts.Fatalf("usage: hookstorm N AGENT EVENT...")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	deadline, err := time.ParseDuration(ts.Getenv("MEM_HOOK_DEADLINE"))
	if err != nil {
		deadline = 2 * time.Second
	}
	var templates []string
	for _, f := range args[2:] {
		templates = append(templates, ts.ReadFile(f))
	}
	bin, env := scriptMem(ts, "hookstorm")
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	var slowest time.Duration
	for i := 0; i < n; i++ {
		for _, tpl := range templates {
			wg.Add(1)
			go func(i int, tpl string) {
				defer wg.Done()
				cmd := exec.Command(bin, "hook", args[1])
				cmd.Env = env
				cmd.Dir = ts.MkAbs(".")
				cmd.Stdin = strings.NewReader(strings.ReplaceAll(tpl, "{i}", strconv.Itoa(i)))
				start := time.Now()
				out, err := cmd.Output()
				took := time.Since(start)
				mu.Lock()
				defer mu.Unlock()
				if took > slowest {
					slowest = took
				}
				if err != nil {
					problems = append(problems, fmt.Sprintf("process %d: %v", i, err))
				}
				if len(out) > 0 && !json.Valid(out) {
					problems = append(problems, fmt.Sprintf("process %d printed invalid JSON: %q", i, out))
				}
			}(i, tpl)
		}
	}
	wg.Wait()
	ts.Logf("hookstorm: %d processes, slowest %s (deadline %s)", n*len(templates), slowest, deadline)
	// A process may start late on a busy machine; the deadline is counted
	// from its own start, so allow start-up and exit on top of it.
	if slowest > deadline+time.Second {
		problems = append(problems, fmt.Sprintf("slowest process took %s, deadline %s", slowest, deadline))
	}
	if log, err := os.ReadFile(ts.MkAbs("home/.local/state/mem/hook.log")); err == nil {
		problems = append(problems, "hook.log:\n"+string(log))
	}
	if len(problems) > 0 {
		ts.Fatalf("%s", strings.Join(problems, "\n"))
	}
}

// scriptMem returns the mem binary on the script's PATH and the script's
// environment, for commands that start mem processes themselves.
func scriptMem(ts *testscript.TestScript, cmd string) (bin string, env []string) {
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "mem")); err == nil {
			bin = filepath.Join(dir, "mem")
			break
		}
	}
	if bin == "" {
		ts.Fatalf("%s: mem is not on the script's PATH", cmd)
	}
	env = os.Environ()
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "MEM_DB", "MEM_PROJECT",
		"MEM_HOOK_DEADLINE", "MEM_HOOK_LOG", "PATH"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return bin, env
}
