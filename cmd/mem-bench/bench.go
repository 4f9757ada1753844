package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/benchgen"
	"github.com/memhq/mem/internal/store"
)

type benchConfig struct {
	mem      string
	sizes    []int
	runs     int
	warmup   int
	cache    string
	fixtures string
	events   map[string][]byte // the hook events measured, by file name
	only     string
	fresh    bool
}

// importFigures is what building a database measured; it is kept beside the
// cached database so later runs can report it.
type importFigures struct {
	Observations int     `json:"observations"`
	Files        int     `json:"files"`
	WallSeconds  float64 `json:"wall_seconds"`
	CPUSeconds   float64 `json:"cpu_seconds"`
	MaxRSS       int64   `json:"max_rss"`
	Load         string  `json:"load"`
	When         string  `json:"when"`
}

// benchCase is one user-facing path measured as a whole process.
type benchCase struct {
	name     string
	needs    []string // subcommand path that must exist, e.g. {"hook"}
	args     func(i int) []string
	stdin    []byte
	vary     func(stdin []byte, i int) []byte // per-run stdin, so runs do not dedup
	targetMS float64                          // p50 target at 100k; 0 for none
	hook     bool                             // hooks also have the 60 MB memory target
	// expect is text an answer holding memory contains; the verdict counts
	// the runs that had it, since an empty answer is a different, faster path.
	expect string
}

type row struct {
	name    string
	size    int
	s       stats
	target  float64
	hook    bool
	expect  string
	skip    string
	note    string
	special string // a free-form figures cell (import)
}

func parseSize(s string) (int, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	mult := 1
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1000, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "m"):
		mult, s = 1000000, strings.TrimSuffix(s, "m")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q: want a number like 10k, 100k or 1m", s)
	}
	return n * mult, nil
}

func sizeLabel(n int) string {
	switch {
	case n%1000000 == 0:
		return fmt.Sprintf("%dm", n/1000000)
	case n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

func runBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	var c benchConfig
	sizes := fs.String("sizes", "10k,100k", "database sizes in observations (10k, 100k, 1m)")
	fs.StringVar(&c.mem, "mem", "bin/mem", "the mem binary to measure")
	fs.IntVar(&c.runs, "runs", 15, "measured runs per path")
	fs.IntVar(&c.warmup, "warmup", 3, "unmeasured runs first")
	fs.StringVar(&c.cache, "cache", ".bench", "folder for generated data and databases")
	fs.StringVar(&c.fixtures, "fixtures", defaultFixtures(), "hook event fixtures (claude-code/*.json under it)")
	fs.StringVar(&c.only, "only", "", "measure only paths whose name contains this (any case)")
	fs.BoolVar(&c.fresh, "fresh", false, "rebuild the databases (and measure import again)")
	out := fs.String("out", "", "also write the markdown report here")
	fs.Parse(args)
	for _, s := range strings.Split(*sizes, ",") {
		n, err := parseSize(s)
		if err != nil {
			return err
		}
		c.sizes = append(c.sizes, n)
	}
	mem, err := filepath.Abs(c.mem)
	if err != nil {
		return err
	}
	c.mem = mem
	if c.events, err = loadEvents(c.fixtures, benchEvents); err != nil {
		return err
	}

	loadBefore := loadavg()
	var rows []row
	for _, n := range c.sizes {
		db, imp, err := c.ensureDB(n)
		if err != nil {
			return err
		}
		rows = append(rows, importRow(n, imp))
		for _, bc := range c.cases(n, db) {
			if !c.selected(bc.name) {
				continue
			}
			r := row{name: bc.name, size: n, target: bc.targetMS, hook: bc.hook, expect: bc.expect}
			if missing := c.missing(db, bc.needs); missing != "" {
				r.skip = missing
				rows = append(rows, r)
				continue
			}
			r.s, err = c.measure(db, bc)
			if err != nil {
				return err
			}
			rows = append(rows, r)
			fmt.Fprintf(os.Stderr, "%-28s %5s p50 %7s ms  p95 %7s ms  rss %6s MB\n", bc.name, sizeLabel(n),
				ms(r.s.P50), ms(r.s.P95), mb(r.s.MaxRSS))
		}
		if c.selected(summarizeName) {
			rows = append(rows, c.summarizeRow(n, db))
		}
	}
	report := renderReport(rows, c, loadBefore, loadavg())
	fmt.Print(report)
	if *out != "" {
		return os.WriteFile(*out, []byte(report), 0o644)
	}
	return nil
}

// selected says whether -only lets the path of this name be measured: its
// name contains the -only text, in any case.
func (c benchConfig) selected(name string) bool {
	return strings.Contains(strings.ToLower(name), strings.ToLower(c.only))
}

const summarizeName = "mem summarize --pending (1 run)"

// env is the environment of every measured process: its own HOME, so no
// configuration of the person running the bench leaks in.
func (c benchConfig) env() []string {
	home := filepath.Join(c.cache, "home")
	abs, _ := filepath.Abs(home)
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + abs,
		"XDG_CONFIG_HOME=" + abs + "/.config",
		"XDG_DATA_HOME=" + abs + "/.local/share",
		"XDG_STATE_HOME=" + abs + "/.local/state",
		"MEM_PROJECT=" + benchgen.ProjectKey(0),
		"CLAUDE_PROJECT_DIR=" + abs,
	}
}

// missing says why a path cannot be measured yet: the subcommand is not in
// this mem (it has not landed).
func (c benchConfig) missing(db string, needs []string) string {
	if len(needs) == 0 {
		return ""
	}
	r, err := proc{Bin: c.mem, Args: append(append([]string{}, needs...), "--help"), Env: c.env()}.run()
	if err != nil || r.Code != 0 {
		return fmt.Sprintf("`mem %s` is not in this build yet", strings.Join(needs, " "))
	}
	return ""
}

func (c benchConfig) measure(db string, bc benchCase) (stats, error) {
	var rs []run
	held := 0
	for i := 0; i < c.warmup+c.runs; i++ {
		args := append([]string{"--db", db}, bc.args(i)...)
		in := bc.stdin
		if bc.vary != nil {
			in = bc.vary(in, i)
		}
		r, err := proc{Bin: c.mem, Args: args, Env: c.env(), Stdin: in}.run()
		if err != nil {
			return stats{}, err
		}
		if i >= c.warmup {
			rs = append(rs, r)
			if bc.expect != "" && bytes.Contains(r.Stdout, []byte(bc.expect)) {
				held++
			}
		}
	}
	st := summarise(rs)
	st.Held = held
	// Peak memory from /usr/bin/time in three more runs: the rusage of a
	// child started by Go (vfork) counts the parent's resident set too.
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		st.MaxRSS = 0
		for i := range 3 {
			out := filepath.Join(c.cache, "time.out")
			args := append([]string{"-f", "%M", "-o", out, c.mem, "--db", db}, bc.args(c.warmup+c.runs+i)...)
			in := bc.stdin
			if bc.vary != nil {
				in = bc.vary(in, c.warmup+c.runs+i)
			}
			if _, err := (proc{Bin: "/usr/bin/time", Args: args, Env: c.env(), Stdin: in}).run(); err != nil {
				return st, err
			}
			b, _ := os.ReadFile(out)
			kb, _ := strconv.ParseInt(strings.TrimSpace(lastLine(string(b))), 10, 64)
			st.MaxRSS = max(st.MaxRSS, kb*1024)
		}
	}
	return st, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// cases lists the measured paths for a database of n observations.
func (c benchConfig) cases(n int, db string) []benchCase {
	fixture := func(name string) []byte {
		b, ok := c.events[name]
		if !ok {
			panic("bench: hook event " + name + " is not in benchEvents")
		}
		return b
	}
	// The prompt of the UserPromptSubmit event, for `mem context prompt`
	// to do the hook's work without the hook around it. Both send it in a
	// new session each run: a session never gets the same memory twice, so
	// repeating it in one session soon measures an empty answer.
	var prompt struct {
		SessionID string `json:"session_id"`
		Prompt    string `json:"prompt"`
	}
	if err := json.Unmarshal(fixture("user-prompt-submit.json"), &prompt); err != nil {
		panic("bench: user-prompt-submit.json: " + err.Error())
	}
	hookArgs := func(int) []string { return []string{"hook", "claude"} }
	search := func(q string) func(int) []string { return func(int) []string { return []string{"search", q} } }
	stamp := time.Now().UnixNano()
	promptSession := func(i int) string { return fmt.Sprintf("%s-%d-%d", prompt.SessionID, stamp, i) }
	return []benchCase{
		{name: "mem version (process floor)", args: func(int) []string { return []string{"version"} }},
		{name: "mem observe", targetMS: 10, args: func(i int) []string {
			return []string{"observe", "--session", fmt.Sprintf("bench-run-%d", stamp), "--type", "decision",
				"--title", fmt.Sprintf("Benchmark decision %d: keep retryPolicy in internal/store/db.go", i),
				"--narrative", "Measured by scripts/bench as a whole process.", "--file-modified", "internal/store/db.go"}
		}},
		{name: "mem get", targetMS: 10, args: func(i int) []string {
			return []string{"get", strconv.Itoa(1 + (n/2+i*7919)%n)}
		}},
		{name: "mem inject (start)", needs: []string{"inject"}, targetMS: 15, args: func(int) []string {
			return []string{"inject"}
		}},
		{name: "mem inject (compact)", needs: []string{"inject"}, targetMS: 15, args: func(int) []string {
			return []string{"inject", "--mode", "compact", "--session", latestSession(db)}
		}},
		{name: "mem inject (text, prompt)", needs: []string{"inject"}, targetMS: 15, args: func(int) []string {
			return []string{"inject", "--format", "text", "--prompt", typicalQuery}
		}},
		{name: "mem search (typical)", needs: []string{"search"}, targetMS: 30, args: search(typicalQuery)},
		{name: "mem search (rare word)", needs: []string{"search"}, targetMS: 30, args: search(benchgen.RareWord)},
		{name: "mem search (common word)", needs: []string{"search"}, targetMS: 30, args: search(benchgen.CommonWord)},
		// Hard queries, with no target: words in most rows, nothing indexable,
		// a pasted log.
		{name: "mem search (common words only)", needs: []string{"search"}, args: search(benchgen.CommonWords)},
		{name: "mem search (stopwords only)", needs: []string{"search"}, args: search("the a of to in with")},
		{name: "mem search (8 KB pasted log)", needs: []string{"search"}, args: search(pastedLog)},
		{name: "hook SessionStart", needs: []string{"hook"}, targetMS: 20, hook: true,
			stdin: fixture("session-start-startup.json"), args: hookArgs},
		{name: "hook UserPromptSubmit", needs: []string{"hook"}, hook: true, expect: "<context ",
			stdin: fixture("user-prompt-submit.json"), vary: func(b []byte, i int) []byte {
				return bytes.ReplaceAll(b, []byte(prompt.SessionID), []byte(promptSession(i)))
			}, args: hookArgs},
		{name: "mem context prompt", needs: []string{"context", "prompt"}, expect: "<context ", args: func(i int) []string {
			return []string{"context", "prompt", "--session", promptSession(i), "--text", prompt.Prompt}
		}},
		{name: "hook PostToolUse", needs: []string{"hook"}, targetMS: 10, hook: true,
			stdin: fixture("post-tool-use-edit.json"), vary: func(b []byte, i int) []byte {
				// A different edit each run: a new observation, not a duplicate.
				return bytes.ReplaceAll(b, []byte("cfg.Refund.MaxRetries"), []byte(fmt.Sprintf("cfg.Refund.MaxRetries%d_%d", stamp, i)))
			}, args: hookArgs},
		{name: "hook PostToolUse (Bash failure)", needs: []string{"hook"}, targetMS: 10, hook: true,
			stdin: fixture("post-tool-use-bash-fail.json"), vary: func(b []byte, i int) []byte {
				// A different failing test each run: a new problem stored.
				return bytes.ReplaceAll(b, []byte("TestRefundRetries"), []byte(fmt.Sprintf("TestRefundRetries%d_%d", stamp, i)))
			}, args: hookArgs},
	}
}

// typicalQuery is a search, and an inject prompt, of six words, most of
// them common in the generated vocabulary.
const typicalQuery = "retry timeout in the cache handler"

// pastedLog is a query of 8.5 KB: a stack trace pasted whole, as agents do.
var pastedLog = strings.Repeat("panic: runtime error: index out of range goroutine 1 [running] main.main() /src/internal/store/db.go:12 +0x1d\n", 80)

// summarizeRow runs `mem summarize --pending` once on a copy of the
// database (a fifth of the generated sessions have no summary), since a
// second run would find nothing left to do.
func (c benchConfig) summarizeRow(n int, db string) row {
	r := row{name: summarizeName, size: n}
	if m := c.missing(db, []string{"summarize"}); m != "" {
		r.skip = m
		return r
	}
	cp := filepath.Join(c.cache, "summarize-copy.db")
	defer os.Remove(cp)
	defer os.Remove(cp + "-wal")
	defer os.Remove(cp + "-shm")
	if err := copyFile(db, cp); err != nil {
		r.skip = "copying the database: " + err.Error()
		return r
	}
	res, err := proc{Bin: c.mem, Args: []string{"--db", cp, "summarize", "--pending"}, Env: c.env()}.run()
	if err != nil {
		r.skip = err.Error()
		return r
	}
	r.s = summarise([]run{res})
	r.note = strings.TrimSpace(firstLine(string(res.Stdout)))
	return r
}

// latestSession is the most recent session of the measured project, the one
// a compaction would happen in.
func latestSession(db string) string {
	d, err := store.Open(context.Background(), db, store.Options{NoMigrate: true})
	if err != nil {
		return ""
	}
	defer d.Close()
	var id string
	_ = d.SQL().Get(&id, `SELECT id FROM sessions WHERE project = ? ORDER BY last_activity_at DESC LIMIT 1`, benchgen.ProjectKey(0))
	return id
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ensureDB returns the cached database of n observations, generating and
// importing it (through the real `mem import`, one process per file) when
// it is missing.
func (c benchConfig) ensureDB(n int) (string, importFigures, error) {
	label := sizeLabel(n)
	db, _ := filepath.Abs(filepath.Join(c.cache, "db-"+label+".db"))
	meta := db + ".json"
	var fig importFigures
	if !c.fresh {
		if b, err := os.ReadFile(meta); err == nil && json.Unmarshal(b, &fig) == nil {
			if _, err := os.Stat(db); err == nil {
				return db, fig, nil
			}
		}
	}
	for _, suffix := range []string{"", "-wal", "-shm", ".json", ".migrate-lock"} {
		os.Remove(db + suffix)
	}
	genDir := filepath.Join(c.cache, "gen-"+label)
	done := filepath.Join(genDir, "done")
	var files []string
	if _, err := os.Stat(done); err == nil {
		files, _ = filepath.Glob(filepath.Join(genDir, "part-*.jsonl"))
	} else {
		os.RemoveAll(genDir)
		fmt.Fprintf(os.Stderr, "generating %s observations...\n", label)
		var err error
		if files, err = generate(genDir, n, 100000, 1); err != nil {
			return "", fig, err
		}
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			return "", fig, err
		}
	}
	fig = importFigures{Observations: n, Files: len(files), Load: loadavg(), When: time.Now().UTC().Format(time.RFC3339)}
	for _, f := range files {
		fmt.Fprintf(os.Stderr, "importing %s...\n", f)
		r, err := proc{Bin: c.mem, Args: []string{"--db", db, "import", f}, Env: c.env()}.run()
		if err != nil {
			return "", fig, err
		}
		if r.Code != 0 {
			return "", fig, fmt.Errorf("mem import %s: exit %d: %s", f, r.Code, r.Stderr)
		}
		fig.WallSeconds += r.Wall.Seconds()
		fig.CPUSeconds += r.CPU.Seconds()
		fig.MaxRSS = max(fig.MaxRSS, r.MaxRSS)
	}
	b, _ := json.MarshalIndent(fig, "", "  ")
	return db, fig, os.WriteFile(meta, b, 0o644)
}

func importRow(n int, f importFigures) row {
	return row{name: "mem import", size: n, special: fmt.Sprintf("%d files, %.1f s wall (%.0f obs/s), %.1f s CPU (%.0f obs/CPU-s), peak %s MB",
		f.Files, f.WallSeconds, float64(f.Observations)/f.WallSeconds, f.CPUSeconds, float64(f.Observations)/f.CPUSeconds, mb(f.MaxRSS)),
		target: 0, note: fmt.Sprintf("target >= 10,000 obs/s; measured %s at load %s", f.When, f.Load)}
}

func renderReport(rows []row, c benchConfig, load0, load1 string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %s. %d runs per path after %d warm-up runs; 1-minute load average %s before, %s after.\n\n",
		machine(), c.runs, c.warmup, load0, load1)
	fmt.Fprintln(&b, "| path | observations | p50 ms | p95 ms | CPU p50 ms | peak RSS MB | target (p50 at 100k) | verdict |")
	fmt.Fprintln(&b, "|---|---:|---:|---:|---:|---:|---|---|")
	for _, r := range rows {
		size := sizeLabel(r.size)
		switch {
		case r.skip != "":
			fmt.Fprintf(&b, "| %s | %s | - | - | - | - | %s | skipped: %s |\n", r.name, size, target(r), r.skip)
		case r.special != "":
			fmt.Fprintf(&b, "| %s | %s | %s |||| %s | %s |\n", r.name, size, r.special, "10,000 obs/s", r.note)
		default:
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.name, size, ms(r.s.P50), ms(r.s.P95),
				ms(r.s.CPU50), mb(r.s.MaxRSS), target(r), verdict(r))
		}
	}
	b.WriteString(growth(rows, c.sizes))
	return b.String()
}

// growth tabulates each path's p50 across the database sizes, with the
// largest size's over the smallest's: how latency grows with the memory.
func growth(rows []row, sizes []int) string {
	if len(sizes) < 2 {
		return ""
	}
	p50 := map[string]map[int]time.Duration{}
	var names []string
	for _, r := range rows {
		if r.skip != "" || r.special != "" || r.s.N == 0 {
			continue
		}
		if p50[r.name] == nil {
			p50[r.name] = map[int]time.Duration{}
			names = append(names, r.name)
		}
		p50[r.name][r.size] = r.s.P50
	}
	first, last := sizes[0], sizes[len(sizes)-1]
	var b strings.Builder
	fmt.Fprintf(&b, "\nGrowth of p50 ms with the database, and %s over %s:\n\n| path |", sizeLabel(last), sizeLabel(first))
	for _, n := range sizes {
		fmt.Fprintf(&b, " %s |", sizeLabel(n))
	}
	fmt.Fprintf(&b, " %s / %s |\n|---|%s---:|\n", sizeLabel(last), sizeLabel(first), strings.Repeat("---:|", len(sizes)))
	for _, name := range names {
		fmt.Fprintf(&b, "| %s |", name)
		for _, n := range sizes {
			if d, ok := p50[name][n]; ok {
				fmt.Fprintf(&b, " %s |", ms(d))
			} else {
				b.WriteString(" - |")
			}
		}
		lo, ok1 := p50[name][first]
		hi, ok2 := p50[name][last]
		if ok1 && ok2 && lo > 0 {
			fmt.Fprintf(&b, " x%.2f |\n", float64(hi)/float64(lo))
		} else {
			b.WriteString(" - |\n")
		}
	}
	return b.String()
}

func target(r row) string {
	var parts []string
	if r.target > 0 {
		parts = append(parts, fmt.Sprintf("%.0f ms", r.target))
	}
	if r.hook {
		parts = append(parts, "< 60 MB")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func verdict(r row) string {
	var v []string
	if r.s.Failures > 0 {
		v = append(v, fmt.Sprintf("%d of %d runs failed: %s", r.s.Failures, r.s.N, oneLine(r.s.LastError)))
	}
	if r.target > 0 {
		got := float64(r.s.P50.Microseconds()) / 1000
		if got <= r.target {
			v = append(v, "met")
		} else {
			v = append(v, fmt.Sprintf("missed by %.1f ms", got-r.target))
		}
	}
	if r.expect != "" {
		v = append(v, fmt.Sprintf("%d of %d answers held memory (%s KB p50)", r.s.Held, r.s.N, kb(r.s.Out50)))
	}
	if r.hook && r.s.MaxRSS >= 60<<20 {
		v = append(v, "memory over 60 MB")
	}
	if r.note != "" {
		v = append(v, r.note)
	}
	return strings.Join(v, "; ")
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}
