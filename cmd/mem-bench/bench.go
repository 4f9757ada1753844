package main

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/benchgen"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/text"
)

type benchConfig struct {
	mem   string
	floor string // the Go hello-world every path is paired with
	// openFloor opens the database as mem does and runs one statement: the
	// floor of every command that reads it (none: its rows are left out).
	openFloor string
	sizes     []int
	runs      int
	warmup    int
	cache     string
	fixtures  string

	only    string
	fresh   bool
	imports bool // measure mem import at each size in this run
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
	Err          string  `json:"error,omitempty"`
}

// benchCase is one user-facing path measured as a whole process.
type benchCase struct {
	name  string
	bin   string   // the program run, when not mem
	needs []string // subcommand path that must exist, e.g. {"hook"}
	args  func(i int) []string
	stdin []byte
	vary  func(stdin []byte, i int) []byte // per-run stdin, so runs do not dedup
	ratio float64                          // target: p50 of the paired ratios to the floor; 0 for none
	hook  bool                             // hooks also have the 60 MB memory target
	// expect is text an answer holding memory contains; the verdict counts
	// the runs that had it, since an empty answer is a different, faster path.
	expect string
}

type row struct {
	name    string
	size    int
	s       stats
	target  float64 // ratio target
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
	sizes := fs.String("sizes", "100k", "database sizes in observations (10k, 100k, 1m)")
	fs.StringVar(&c.mem, "mem", "bin/mem", "the mem binary to measure")
	fs.StringVar(&c.floor, "floor", "bin/hello", "the Go hello-world built with the same toolchain (the floor)")
	fs.StringVar(&c.openFloor, "open-floor", "", "cmd/mem-bench/testdata/openfloor built with the same toolchain: adds the rows of opening the database and one statement")
	fs.IntVar(&c.runs, "runs", 15, "measured runs per path")
	fs.IntVar(&c.warmup, "warmup", 3, "unmeasured runs first")
	fs.StringVar(&c.cache, "cache", ".bench", "folder for generated data and databases")
	fs.StringVar(&c.fixtures, "fixtures", defaultFixtures(), "hook event fixtures (claude-code/, codex/, gemini/ under it)")
	fs.StringVar(&c.only, "only", "", "measure only paths whose name contains this (any case)")
	fs.BoolVar(&c.fresh, "fresh", false, "regenerate the data and rebuild the databases")
	fs.BoolVar(&c.imports, "import", true, "measure mem import of the generated data at each size, into a new database")
	out := fs.String("out", "", "also write the markdown report here")
	fs.Parse(args)
	for _, s := range strings.Split(*sizes, ",") {
		n, err := parseSize(s)
		if err != nil {
			return err
		}
		c.sizes = append(c.sizes, n)
	}
	for _, p := range []*string{&c.mem, &c.floor, &c.openFloor} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	toolchain, err := sameToolchain(c.mem, c.floor)
	if err != nil {
		return err
	}
	if c.openFloor != "" {
		if _, err := sameToolchain(c.mem, c.openFloor); err != nil {
			return fmt.Errorf("-open-floor: %w", err)
		}
	}

	loadBefore := loadavg()
	var rows []row
	missing := map[string]string{} // why a subcommand cannot be measured, by its path
	for _, n := range c.sizes {
		db, imp, err := c.ensureDB(n)
		if err != nil {
			return err
		}
		if c.selected("mem import") {
			rows = append(rows, importRow(n, imp))
		}
		cases, err := c.cases(n, db)
		if err != nil {
			return err
		}
		for _, bc := range cases {
			if !c.selected(bc.name) {
				continue
			}
			r := row{name: bc.name, size: n, target: bc.ratio, hook: bc.hook, expect: bc.expect}
			key := strings.Join(bc.needs, " ")
			if _, ok := missing[key]; !ok {
				missing[key] = c.missing(db, bc.needs)
			}
			if missing[key] != "" {
				r.skip = missing[key]
				rows = append(rows, r)
				continue
			}
			if err := c.settle(db); err != nil {
				return err
			}
			r.s, err = c.measure(db, bc)
			if err != nil {
				return err
			}
			rows = append(rows, r)
			fmt.Fprintf(os.Stderr, "%-40s %5s p50 %7s ms  p95 %7s ms  x%5.2f  rss %6s MB\n", bc.name, sizeLabel(n),
				ms(r.s.P50), ms(r.s.P95), r.s.Ratio, mb(r.s.MaxRSS))
		}
		if c.selected(summarizeName) {
			rows = append(rows, c.summarizeRow(n, db))
		}
	}
	report := renderReport(rows, c, toolchain, loadBefore, loadavg())
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

// measure runs bc warmup+runs times, each run paired with a run of the
// floor just before or just after it (alternately), so that what the load
// of the machine adds falls on both; the ratio is the median of the pairs'.
// settle starts each path from the same state of the database: nothing
// spooled by the paths before it and the write-ahead log checkpointed, as
// `mem init` leaves them.
func (c benchConfig) settle(db string) error {
	r, err := proc{Bin: c.mem, Args: []string{"--db", db, "init"}, Env: c.env()}.run()
	if err != nil {
		return err
	}
	if r.Code != 0 {
		return fmt.Errorf("mem init: exit %d: %s", r.Code, r.Stderr)
	}
	return nil
}

func (c benchConfig) measure(db string, bc benchCase) (stats, error) {
	var rs, floors []run
	held := 0
	bin := c.mem
	if bc.bin != "" {
		bin = bc.bin
	}
	for i := 0; i < c.warmup+c.runs; i++ {
		args := append([]string{"--db", db}, bc.args(i)...)
		in := bc.stdin
		if bc.vary != nil {
			in = bc.vary(in, i)
		}
		var r, f run
		var err, ferr error
		if i%2 == 0 {
			f, ferr = proc{Bin: c.floor, Env: c.env()}.run()
			r, err = proc{Bin: bin, Args: args, Env: c.env(), Stdin: in}.run()
		} else {
			r, err = proc{Bin: bin, Args: args, Env: c.env(), Stdin: in}.run()
			f, ferr = proc{Bin: c.floor, Env: c.env()}.run()
		}
		if err != nil {
			return stats{}, err
		}
		if ferr != nil {
			return stats{}, ferr
		}
		if i >= c.warmup {
			rs, floors = append(rs, r), append(floors, f)
			if bc.expect != "" && bytes.Contains(r.Stdout, []byte(bc.expect)) {
				held++
			}
		}
	}
	st := summarise(rs)
	st.Held = held
	st.Ratio, st.Floor50 = pairedRatio(rs, floors, func(r run) time.Duration { return r.Wall })
	st.CPURatio, _ = pairedRatio(rs, floors, func(r run) time.Duration { return r.CPU })
	st.FloorFlt = faults50(floors)
	// Peak memory from /usr/bin/time in three more runs: the rusage of a
	// child started by Go (vfork) counts the parent's resident set too.
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		st.MaxRSS = 0
		for i := range 3 {
			in := bc.stdin
			if bc.vary != nil {
				in = bc.vary(in, c.warmup+c.runs+i)
			}
			t, err := c.timed(append([]string{"--db", db}, bc.args(c.warmup+c.runs+i)...), in)
			if err != nil {
				return st, err
			}
			st.MaxRSS = max(st.MaxRSS, t.MaxRSS)
		}
	}
	return st, nil
}

// pairedRatio is the median over the runs of a path's time (of, wall or
// CPU) divided by that of the floor's run paired with it, and the floor's
// median.
func pairedRatio(rs, floors []run, of func(run) time.Duration) (float64, time.Duration) {
	if len(rs) == 0 || len(rs) != len(floors) {
		return 0, 0
	}
	ratios := make([]float64, len(rs))
	walls := make([]time.Duration, len(floors))
	for i := range rs {
		ratios[i] = float64(of(rs[i])) / float64(max(of(floors[i]), time.Microsecond))
		walls[i] = of(floors[i])
	}
	slices.Sort(ratios)
	slices.Sort(walls)
	mid := len(ratios) / 2
	r := ratios[mid]
	if len(ratios)%2 == 0 {
		r = (ratios[mid-1] + ratios[mid]) / 2
	}
	return r, percentile(walls, 50)
}

// timed runs mem with args under /usr/bin/time, which reports the peak
// resident memory of mem alone.
func (c benchConfig) timed(args []string, stdin []byte) (run, error) {
	out := filepath.Join(c.cache, "time.out")
	targs := append([]string{"-f", "%U %S %M", "-o", out, c.mem}, args...)
	r, err := proc{Bin: "/usr/bin/time", Args: targs, Env: c.env(), Stdin: stdin}.run()
	if err != nil {
		return r, err
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return r, err
	}
	f := strings.Fields(lastLine(string(b)))
	if len(f) != 3 {
		return r, fmt.Errorf("/usr/bin/time wrote %q", b)
	}
	user, _ := strconv.ParseFloat(f[0], 64)
	sys, _ := strconv.ParseFloat(f[1], 64)
	kb, _ := strconv.ParseInt(f[2], 10, 64)
	r.CPU = time.Duration((user + sys) * float64(time.Second))
	r.MaxRSS = kb * 1024
	return r, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Targets, as the p50 of a path's time over the floor's in paired runs.
const (
	versionRatio = 1.5 // mem version: starting mem before any database work
	hookRatio    = 2.5 // every hook event of every agent, mem observe, mem get
	readRatio    = 3.0 // mem search (typical queries), mem inject
)

// cases lists the measured paths for a database of n observations.
func (c benchConfig) cases(n int, db string) ([]benchCase, error) {
	search := func(q string) func(int) []string { return func(int) []string { return []string{"search", q} } }
	stamp := time.Now().UnixNano()
	var prompt struct {
		SessionID string `json:"session_id"`
		Prompt    string `json:"prompt"`
	}
	ev, _, err := hookEvent(c.fixtures, hookCase{agent: "claude", file: "claude-code/user-prompt-submit.json"})
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(ev, &prompt); err != nil {
		return nil, fmt.Errorf("user-prompt-submit.json: %w", err)
	}
	cases := []benchCase{
		{name: "mem version", ratio: versionRatio, args: func(int) []string { return []string{"version"} }},
		{name: "mem observe", ratio: hookRatio, args: func(i int) []string {
			return []string{"observe", "--session", fmt.Sprintf("bench-run-%d", stamp), "--type", "decision",
				"--title", fmt.Sprintf("Benchmark decision %d: keep retryPolicy in internal/store/db.go", i),
				"--narrative", "Measured by scripts/bench as a whole process.", "--file-modified", "internal/store/db.go"}
		}},
		{name: "mem get", ratio: hookRatio, args: func(i int) []string {
			return []string{"get", strconv.Itoa(1 + (n/2+i*7919)%n)}
		}},
		{name: "mem inject (start)", needs: []string{"inject"}, ratio: readRatio, args: func(int) []string {
			return []string{"inject"}
		}},
		{name: "mem inject (compact)", needs: []string{"inject"}, ratio: readRatio, args: func(int) []string {
			return []string{"inject", "--mode", "compact", "--session", latestSession(db)}
		}},
		{name: "mem inject (text, prompt)", needs: []string{"inject"}, ratio: readRatio, args: func(int) []string {
			return []string{"inject", "--format", "text", "--prompt", typicalQuery}
		}},
		{name: "mem search (typical)", needs: []string{"search"}, ratio: readRatio, args: search(typicalQuery)},
		{name: "mem search (rare word)", needs: []string{"search"}, ratio: readRatio, args: search(benchgen.RareWord)},
		{name: "mem search (common word)", needs: []string{"search"}, ratio: readRatio, args: search(benchgen.CommonWord)},
		// Hard queries, with no target: words in most rows, nothing indexable,
		// a pasted log.
		{name: "mem search (common words only)", needs: []string{"search"}, args: search(benchgen.CommonWords)},
		{name: "mem search (stopwords only)", needs: []string{"search"}, args: search("the a of to in with")},
		{name: "mem search (8 KB pasted log)", needs: []string{"search"}, args: search(pastedLog)},
		// The prompt hook's work without the hook around it, in a new
		// session each run as the hook's.
		{name: "mem context prompt", needs: []string{"context", "prompt"}, expect: "<context ", args: func(i int) []string {
			return []string{"context", "prompt", "--session", fmt.Sprintf("%s-ctx-%d-%d", prompt.SessionID, stamp, i), "--text", prompt.Prompt}
		}},
	}
	if c.openFloor != "" {
		// What SQLite alone costs a command that reads the database.
		cases = append(cases,
			benchCase{name: "floor: open + one indexed SELECT", bin: c.openFloor, args: func(int) []string { return nil }},
			benchCase{name: "floor: open + one FTS5 MATCH", bin: c.openFloor, args: func(int) []string { return []string{"--match", benchgen.RareWord} }})
	}
	for _, h := range agentHooks {
		bc, err := hookBenchCase(c.fixtures, h, stamp)
		if err != nil {
			return nil, err
		}
		cases = append(cases, bc)
	}
	return cases, nil
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
	r.note = strings.TrimSpace(text.FirstLine(string(res.Stdout)))
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

// ensureDB returns the cached database of n observations and the figures of
// importing the generated data into a new database: measured in this run
// (-import, the default), else those of when the cached database was built.
// The database imported in this run becomes the cached one when there is
// none.
func (c benchConfig) ensureDB(n int) (string, importFigures, error) {
	label := sizeLabel(n)
	db, _ := filepath.Abs(filepath.Join(c.cache, "db-"+label+".db"))
	meta := db + ".json"
	var fig importFigures
	cached := false
	if !c.fresh {
		if b, err := os.ReadFile(meta); err == nil && json.Unmarshal(b, &fig) == nil {
			if _, err := os.Stat(db); err == nil {
				cached = true
			}
		}
	}
	if cached && !c.imports {
		return db, fig, nil
	}
	files, err := c.generated(n)
	if err != nil {
		return "", fig, err
	}
	scratch := filepath.Join(c.cache, "import-"+label+".db")
	removeDB(scratch)
	fig = importFigures{Observations: n, Files: len(files), Load: loadavg(), When: time.Now().UTC().Format(time.RFC3339)}
	for _, f := range files {
		fmt.Fprintf(os.Stderr, "importing %s...\n", f)
		r, err := c.timed([]string{"--db", scratch, "import", f}, nil)
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
	if cached {
		// The latest figures are those a later -import=false run reports.
		removeDB(scratch)
		return db, fig, os.WriteFile(meta, b, 0o644)
	}
	removeDB(db)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(scratch+suffix, db+suffix); err != nil && !os.IsNotExist(err) {
			return "", fig, err
		}
	}
	removeDB(scratch)
	return db, fig, os.WriteFile(meta, b, 0o644)
}

// generated returns the interchange files of n generated observations,
// writing them when they are not cached.
func (c benchConfig) generated(n int) ([]string, error) {
	genDir := filepath.Join(c.cache, "gen-"+sizeLabel(n))
	done := filepath.Join(genDir, "done")
	if _, err := os.Stat(done); err == nil && !c.fresh {
		return filepath.Glob(filepath.Join(genDir, "part-*.jsonl"))
	}
	os.RemoveAll(genDir)
	fmt.Fprintf(os.Stderr, "generating %s observations...\n", sizeLabel(n))
	files, err := generate(genDir, n, 100000, 1)
	if err != nil {
		return nil, err
	}
	return files, os.WriteFile(done, nil, 0o644)
}

// removeDB removes a database file and the files SQLite and mem keep beside it.
func removeDB(db string) {
	for _, suffix := range []string{"", "-wal", "-shm", ".json", ".migrate-lock"} {
		os.Remove(db + suffix)
	}
	os.RemoveAll(db + ".spool")
}

// Import targets: observations per second of wall time, peak resident memory.
const (
	importRate = 20000
	importRSS  = 150 << 20
)

func importRow(n int, f importFigures) row {
	rate := float64(f.Observations) / f.WallSeconds
	v := "met"
	switch {
	case rate < importRate && f.MaxRSS > importRSS:
		v = "missed: rate and memory"
	case rate < importRate:
		v = "missed: rate"
	case f.MaxRSS > importRSS:
		v = "missed: memory"
	}
	return row{name: "mem import", size: n, special: fmt.Sprintf("%d files, %.1f s wall (%.0f obs/s), %.1f s CPU (%.0f obs/CPU-s), peak %s MB",
		f.Files, f.WallSeconds, rate, f.CPUSeconds, float64(f.Observations)/f.CPUSeconds, mb(f.MaxRSS)),
		note: fmt.Sprintf("%s; measured %s at load %s", v, f.When, f.Load)}
}

// sameToolchain checks that mem and the floor were built by the same Go
// release, and returns it.
func sameToolchain(mem, floor string) (string, error) {
	a, err := buildinfo.ReadFile(mem)
	if err != nil {
		return "", fmt.Errorf("-mem %s: %w", mem, err)
	}
	b, err := buildinfo.ReadFile(floor)
	if err != nil {
		return "", fmt.Errorf("-floor %s: %w (scripts/bench builds it from cmd/mem-bench/testdata/hello)", floor, err)
	}
	if a.GoVersion != b.GoVersion {
		return "", fmt.Errorf("-mem was built with %s and -floor with %s: build both with the same toolchain", a.GoVersion, b.GoVersion)
	}
	return a.GoVersion, nil
}

func renderReport(rows []row, c benchConfig, toolchain, load0, load1 string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %s. Floor: a Go hello-world built with %s, as mem is. %d runs per path after %d warm-up runs, each paired with a run of the floor; 1-minute load average %s before, %s after.\n\n",
		machine(), toolchain, c.runs, c.warmup, load0, load1)
	fmt.Fprintln(&b, "| path | observations | p50 ms | p95 ms | CPU p50 ms | peak RSS MB | page faults (floor) | floor p50 ms | x floor (p50) | x floor, CPU | target | verdict |")
	fmt.Fprintln(&b, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
	for _, r := range rows {
		size := sizeLabel(r.size)
		switch {
		case r.skip != "":
			fmt.Fprintf(&b, "| %s | %s | - | - | - | - | - | - | - | - | %s | skipped: %s |\n", r.name, size, target(r), r.skip)
		case r.special != "":
			fmt.Fprintf(&b, "| %s | %s | %s |||||||| >= 20,000 obs/s, <= 150 MiB | %s |\n", r.name, size, r.special, r.note)
		default:
			floor, ratio, cpu, faults := "-", "-", "-", fmt.Sprint(r.s.Faults50)
			if r.s.Ratio > 0 { // paired with the floor
				floor, ratio, cpu = ms(r.s.Floor50), fmt.Sprintf("%.2f", r.s.Ratio), fmt.Sprintf("%.2f", r.s.CPURatio)
				faults = fmt.Sprintf("%d (%d)", r.s.Faults50, r.s.FloorFlt)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.name, size, ms(r.s.P50), ms(r.s.P95),
				ms(r.s.CPU50), mb(r.s.MaxRSS), faults, floor, ratio, cpu, target(r), verdict(r))
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
		parts = append(parts, fmt.Sprintf("<= %.1fx", r.target))
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
		if r.s.Ratio <= r.target {
			v = append(v, "met")
		} else {
			v = append(v, fmt.Sprintf("missed by %.2fx", r.s.Ratio-r.target))
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

func oneLine(s string) string { return text.CutWord(text.OneLine(s), 120) }
