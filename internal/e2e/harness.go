package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/memhq/mem/internal/text"
)

// Options are what cmd/mem-e2e passes in.
type Options struct {
	Mem      string // the real mem binary
	Self     string // this harness binary (copied as the recorder)
	NPMBin   string // node_modules/.bin of the installed CLIs
	Work     string // scratch root; one folder per agent is made in it
	Fixtures string // when set, recorded hook events are saved here (one per agent and event)
	Out      io.Writer
	Timeout  time.Duration // one CLI run
	// Across runs the scenario across Gemini CLI and Claude Code (RunAcross)
	// even when they are not both among the agents.
	Across bool
}

// H is one agent's scratch world.
type H struct {
	Opt     Options
	Agent   *Agent
	Root    string
	Home    string
	Project string
	DB      string
	BinDir  string // holds the recorder named mem
	HookLog string
	Server  *Server
	Results []Result
	Notes   []string
	out     io.Writer
	// untrusted runs the CLI without any flag that trusts hooks for it.
	untrusted bool
	// model, when set, is the model the CLI is told to use instead of the
	// one its settings name.
	model  string
	bare   Run      // the first start without mem
	resume []string // the next run's command line, when set
}

// Result is one check.
type Result struct {
	Agent  string
	Check  string
	Pass   bool
	Reason string
}

// Run is one headless CLI run.
type Run struct {
	Label   string
	Start   time.Time
	Exit    int
	Err     error
	Took    time.Duration
	Stdout  string
	Stderr  string
	Session string // the CLI's session id, where it prints one
}

func (h *H) check(name string, pass bool, format string, args ...any) {
	r := Result{Agent: h.Agent.Name, Check: name, Pass: pass, Reason: fmt.Sprintf(format, args...)}
	h.Results = append(h.Results, r)
	word := "PASS"
	if !pass {
		word = "FAIL"
	}
	fmt.Fprintf(h.out, "%s %-8s %-24s %s\n", word, r.Agent, r.Check, oneLine(r.Reason))
}

func (h *H) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	h.Notes = append(h.Notes, s)
	fmt.Fprintf(h.out, "     %-8s %s\n", h.Agent.Name, s)
}

func oneLine(s string) string { return text.CutWord(text.OneLine(s), 220) }

// newH makes the scratch HOME, project and recorder for agent.
func newH(opt Options, a *Agent, srv *Server) (*H, error) {
	root, err := os.MkdirTemp(opt.Work, a.Name+"-")
	if err != nil {
		return nil, err
	}
	h := &H{Opt: opt, Agent: a, Root: root, Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project"),
		DB: filepath.Join(root, "data", "mem.db"), BinDir: filepath.Join(root, "bin"), HookLog: filepath.Join(root, "hooks.jsonl"),
		Server: srv, out: opt.Out}
	for _, d := range []string{h.Home, h.Project, h.BinDir, filepath.Dir(h.DB)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := copyFile(opt.Self, filepath.Join(h.BinDir, "mem"), 0o755); err != nil {
		return nil, err
	}
	cfg, _ := json.Marshal(RecorderConfig{Mem: opt.Mem, Log: h.HookLog})
	if err := os.WriteFile(filepath.Join(h.BinDir, "recorder.json"), cfg, 0o644); err != nil {
		return nil, err
	}
	if err := provideRipgrep(opt.NPMBin, h.BinDir); err != nil {
		return nil, err
	}
	if err := h.makeProject(); err != nil {
		return nil, err
	}
	return h, nil
}

// provideRipgrep puts an rg on the run's PATH when the machine has none.
// OpenCode's grep and glob tools run rg and otherwise download it from a
// host the harness cannot reach; a developer's machine has one. The rg that
// an installed CLI package ships (Codex's) is used: nothing is fetched.
func provideRipgrep(npmBin, binDir string) error {
	if _, err := exec.LookPath("rg"); err == nil {
		return nil
	}
	found, _ := filepath.Glob(filepath.Join(filepath.Dir(npmBin), "@openai", "codex-*", "vendor", "*", "codex-path", "rg"))
	if len(found) == 0 {
		return nil // the grep checks then fail and say so
	}
	return copyFile(found[0], filepath.Join(binDir, "rg"), 0o755)
}

func copyFile(from, to string, mode os.FileMode) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, mode)
}

// Project files the scripted sessions work on.
var projectFiles = map[string]string{
	"src/discount.js": "// Discounts for the shop's cart.\nexport function applyDiscount(cents, percent) {\n  return Math.floor(cents * (100 - percent) / 100);\n}\n",
	"src/cart.js":     "import { applyDiscount } from './discount.js';\n\nexport function total(items, percent) {\n  const sum = items.reduce((a, i) => a + i.cents, 0);\n  return applyDiscount(sum, percent);\n}\n",
	"src/discount.test.js": "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { applyDiscount } from './discount.js';\n\n" +
		"test('a discount rounds to the nearest cent', () => {\n  assert.strictEqual(applyDiscount(995, 10), 896);\n});\n",
	"package.json": "{ \"name\": \"shop\", \"type\": \"module\", \"private\": true }\n",
	"README.md":    "# shop\n\nA tiny shop used by mem's end-to-end harness.\n",
}

func (h *H) makeProject() error {
	for name, body := range projectFiles {
		p := filepath.Join(h.Project, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"remote", "add", "origin", "https://example.invalid/acme/shop.git"},
		{"add", "."},
		{"-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-qm", "shop"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = h.Project
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w: %s", args, err, out)
		}
	}
	return nil
}

// env is the environment every process of the run gets: the scratch HOME,
// the recorder first on PATH, MEM_DB, the CLI's own variables.
func (h *H) env(db string) []string {
	path := h.BinDir + string(os.PathListSeparator) + h.Opt.NPMBin + string(os.PathListSeparator) + os.Getenv("PATH")
	env := []string{
		"HOME=" + h.Home, "PATH=" + path, "USER=e2e", "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(h.Home, ".config"), "XDG_DATA_HOME=" + filepath.Join(h.Home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(h.Home, ".local", "state"), "XDG_CACHE_HOME=" + filepath.Join(h.Home, ".cache"),
		"TMPDIR=" + os.TempDir(),
	}
	if db != "" {
		env = append(env, "MEM_DB="+db)
	}
	return append(env, h.Agent.Env(h)...)
}

// mem runs the recorder (so the real mem) with the run's environment.
func (h *H) mem(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(h.BinDir, "mem"), args...)
	cmd.Env = h.env(h.DB)
	cmd.Dir = h.Project
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("mem %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// run drives the CLI headless on one script.
func (h *H) run(label string, sc Script, db string) Run {
	sc.ToolCall = func(s Step, tools []string) Call { return h.Agent.ToolCall(h, s, tools) }
	h.Server.Play(h.Agent.Name+"/"+label, sc)
	ctx, cancel := context.WithTimeout(context.Background(), h.Opt.Timeout)
	defer cancel()
	args := h.Agent.Args(h, sc.Prompt)
	if h.resume != nil {
		args = h.resume
	}
	cmd := exec.CommandContext(ctx, filepath.Join(h.Opt.NPMBin, args[0]), args[1:]...)
	cmd.Env = h.env(db)
	cmd.Dir = h.Project
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := Run{Label: label, Start: start, Took: time.Since(start), Stdout: out.String(), Stderr: errb.String(), Err: err}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Exit = ee.ExitCode()
	} else if err != nil {
		r.Exit = -1
	}
	if ctx.Err() != nil {
		r.Err = fmt.Errorf("timed out after %s", h.Opt.Timeout)
		r.Exit = -1
	}
	for _, line := range strings.Split(r.Stdout, "\n") {
		var m struct {
			ID    string `json:"session_id"`
			Camel string `json:"sessionId"` // Copilot CLI's result line
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.ID+m.Camel != "" {
			r.Session = m.ID + m.Camel
			break
		}
	}
	os.WriteFile(filepath.Join(h.Root, label+".stdout"), out.Bytes(), 0o644)
	os.WriteFile(filepath.Join(h.Root, label+".stderr"), errb.Bytes(), 0o644)
	return r
}

// requests returns the agent's requests of one run.
func (h *H) requests(label string) []*Request {
	return h.Server.Requests(h.Agent.Name + "/" + label)
}

// agentRequests returns the requests that carried the script's prompt, by step.
func (h *H) agentRequests(label string) []*Request {
	var out []*Request
	for _, r := range h.requests(label) {
		if r.Agent {
			out = append(out, r)
		}
	}
	return out
}

// hookCalls reads the recorder's log.
func (h *H) hookCalls() []HookCall {
	f, err := os.Open(h.HookLog)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []HookCall
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var c HookCall
		if json.Unmarshal(sc.Bytes(), &c) == nil {
			out = append(out, c)
		}
	}
	return out
}

// Exported is one line of `mem export`.
type Exported struct {
	Kind          string          `json:"kind"`
	ID            json.RawMessage `json:"id"`
	SessionID     string          `json:"session_id"`
	Type          string          `json:"type"`
	Title         string          `json:"title"`
	Subtitle      string          `json:"subtitle"`
	Narrative     string          `json:"narrative"`
	Facts         []string        `json:"facts"`
	FilesRead     []string        `json:"files_read"`
	FilesModified []string        `json:"files_modified"`
	ToolName      string          `json:"tool_name"`
	Text          string          `json:"text"`
	Request       string          `json:"request"`
	Completed     string          `json:"completed"`
	EndedAt       string          `json:"ended_at"`
	Flag          string          `json:"flag"`
	Agent         string          `json:"agent"`
	raw           string
}

// export reads the whole database through `mem export`.
func (h *H) export() ([]Exported, error) { return h.exportDB(h.DB) }

// exportDB exports the database at db.
func (h *H) exportDB(db string) ([]Exported, error) {
	cmd := exec.Command(h.Opt.Mem, "export", "--db", db)
	cmd.Env = h.env("")
	cmd.Dir = h.Project
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("mem export: %w", err)
	}
	var recs []Exported
	for _, line := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r Exported
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("mem export: %w", err)
		}
		r.raw = line
		recs = append(recs, r)
	}
	return recs, nil
}
