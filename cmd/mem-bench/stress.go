package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/memhq/mem/internal/benchgen"
	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/text"
)

// stress runs the reliability suite against a built mem.
type stress struct {
	mem      string
	dir      string
	short    bool
	fixtures string
	failed   []string
	rng      *rand.Rand
	only     string      // -only: the checks asked for by name
	badRows  [][4]string // input, command, exit, what mem said
}

func runStress(args []string) error {
	fs := flag.NewFlagSet("stress", flag.ExitOnError)
	s := &stress{}
	fs.StringVar(&s.mem, "mem", "bin/mem", "the mem binary")
	fs.BoolVar(&s.short, "short", false, "the short form run by scripts/test")
	fs.StringVar(&s.fixtures, "fixtures", defaultFixtures(), "hook event fixtures (claude-code/*.json under it)")
	only := fs.String("only", "", "run only the checks whose name contains this")
	keep := fs.Bool("keep", false, "keep the work folder")
	table := fs.String("table", "", "write the bad-input table (markdown) here")
	seed := fs.Uint64("seed", uint64(time.Now().UnixNano()), "random seed for kill timings")
	fs.Parse(args)
	s.only = *only
	var err error
	if s.mem, err = filepath.Abs(s.mem); err != nil {
		return err
	}
	if s.dir, err = os.MkdirTemp("", "mem-stress-"); err != nil {
		return err
	}
	if !*keep {
		defer os.RemoveAll(s.dir)
	}
	s.rng = rand.New(rand.NewPCG(*seed, 1))
	// The checks count what they wrote; the nightly job run among them
	// must not forget it: the generated records are months old, past the
	// retention of changes and notes.
	conf := filepath.Join(s.dir, "home", ".config", "mem", "config.toml")
	if err := os.MkdirAll(filepath.Dir(conf), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(conf, []byte("[retention]\nchange = \"0s\"\nnote = \"0s\"\n"), 0o600); err != nil {
		return err
	}
	// A wrong -fixtures is found before minutes of checks, not after.
	if _, err := claudeEvents(s.fixtures); err != nil {
		return err
	}
	if _, err := loadEvents(s.fixtures, stormEvents); err != nil {
		return err
	}
	fmt.Printf("mem stress (short=%v, seed=%d, %s)\n", s.short, *seed, machine())
	checks := []struct {
		name string
		fn   func() error
	}{
		{"fresh-open", s.freshOpen},
		{"concurrency", s.concurrency},
		{"crash-import", s.crashImport},
		{"crash-migrate", s.crashMigrate},
		{"crash-summarize", s.crashSummarize},
		{"crash-export", s.crashExport},
		{"disk-readonly", s.readOnly},
		{"disk-full", s.diskFull},
		{"disk-garbage", s.garbage},
		{"bad-input", s.badInput},
		{"hook-burst", s.hookBurst},
		{"hook-burst-saturated", s.hookBurstSaturated},
		{"fresh-burst", s.freshBurst},
		{"drain-start", s.drainStart},
		{"mixed-load", s.mixedLoad},
		{"db-locked", s.lockedHooks},
		{"spool-kill", s.spoolKill},
	}
	for _, c := range checks {
		if *only != "" && !strings.Contains(c.name, *only) {
			continue
		}
		t0 := time.Now()
		err := c.fn()
		var sk skipped
		switch {
		case errors.As(err, &sk):
			fmt.Printf("SKIP %-20s %s\n", c.name, sk.why)
		case err != nil:
			fmt.Printf("FAIL %-20s %v\n", c.name, err)
			s.failed = append(s.failed, c.name)
		default:
			fmt.Printf("ok   %-20s %.1fs\n", c.name, time.Since(t0).Seconds())
		}
	}
	if *table != "" && len(s.badRows) > 0 {
		var b strings.Builder
		fmt.Fprintln(&b, "| bad input | command | exit | what mem says |")
		fmt.Fprintln(&b, "|---|---|---:|---|")
		for _, r := range s.badRows {
			msg := strings.ReplaceAll(strings.ReplaceAll(r[3], s.dir, "$DIR"), "|", `\|`)
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", r[0], r[1], r[2], msg)
		}
		if err := os.WriteFile(*table, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	if len(s.failed) > 0 {
		return fmt.Errorf("stress checks failed: %s", strings.Join(s.failed, ", "))
	}
	return nil
}

// skipped marks a check that cannot run here, with the reason.
type skipped struct{ why string }

func (s skipped) Error() string { return "skipped: " + s.why }

func (s *stress) env(db string) []string {
	home := filepath.Join(s.dir, "home")
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"XDG_CONFIG_HOME=" + home + "/.config", "XDG_DATA_HOME=" + home + "/.local/share",
		"XDG_STATE_HOME=" + home + "/.local/state",
		"MEM_DB=" + db, "MEM_PROJECT=stress/project",
	}
}

// mem runs mem on db and returns the finished process.
func (s *stress) run(db string, stdin []byte, args ...string) run {
	r, err := proc{Bin: s.mem, Args: args, Env: s.env(db), Stdin: stdin, Dir: s.dir}.run()
	if err != nil {
		return run{Code: -1, Stderr: []byte(err.Error())}
	}
	return r
}

func (s *stress) has(sub ...string) bool {
	return s.run(filepath.Join(s.dir, "probe.db"), nil, append(sub, "--help")...).Code == 0
}

func (s *stress) n(short, long int) int {
	if s.short {
		return short
	}
	return long
}

// count reads the database directly (not through mem) and counts rows.
func count(db, table string) (int, error) {
	d, err := store.Open(context.Background(), db, store.Options{NoMigrate: true})
	if err != nil {
		return 0, err
	}
	defer d.Close()
	var n int
	err = d.SQL().Get(&n, `SELECT count(*) FROM `+table)
	return n, err
}

// healthy runs mem doctor and reports its findings when it is not happy.
func (s *stress) healthy(db string) error {
	r := s.run(db, nil, "doctor")
	if r.Code != 0 {
		return fmt.Errorf("mem doctor exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	return nil
}

func busyMessage(b []byte) bool {
	l := strings.ToLower(string(b))
	return strings.Contains(l, "locked") || strings.Contains(l, "busy")
}

// freshOpen: eight processes open one new database file at the same moment;
// all succeed and the schema is there once.
func (s *stress) freshOpen() error {
	for round := range s.n(3, 10) {
		db := filepath.Join(s.dir, fmt.Sprintf("fresh-%d", round), "mem.db")
		var wg sync.WaitGroup
		results := make([]run, 8)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = s.run(db, nil, "init")
			}()
		}
		wg.Wait()
		for i, r := range results {
			if r.Code != 0 {
				return fmt.Errorf("round %d: process %d of 8: exit %d: %s", round, i, r.Code, r.Stderr)
			}
		}
		if err := s.healthy(db); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
	}
	return nil
}

// concurrency: 16 writer processes add observations while 4 readers read;
// every write lands exactly once and no caller sees a lock error.
func (s *stress) concurrency() error {
	db := filepath.Join(s.dir, "concurrency.db")
	perWriter := s.n(6, 40)
	readers := [][]string{{"get", "1"}, {"session", "list"}, {"export"}, {"stats"}}
	if s.has("search") {
		readers[2] = []string{"search", "backoff retry"}
	}
	if s.has("inject") {
		readers[3] = []string{"inject"}
	}
	var mu sync.Mutex
	var problems []string
	report := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 10 {
			problems = append(problems, fmt.Sprintf(format, a...))
		}
	}
	// One observation first, so that readers of #1 find it.
	if r := s.run(db, nil, "observe", "--session", "seed", "--type", "note", "--title", "seed"); r.Code != 0 {
		return fmt.Errorf("seed observation: exit %d: %s", r.Code, r.Stderr)
	}
	done := make(chan struct{})
	var wg, rg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				title := fmt.Sprintf("writer %d observation %d uses exponential backoff", w, i)
				r := s.run(db, nil, "observe", "--session", fmt.Sprintf("w%d", w), "--type", "decision",
					"--title", title, "--file-modified", fmt.Sprintf("internal/w%d.go", w))
				if r.Code != 0 || busyMessage(r.Stderr) {
					report("writer %d #%d: exit %d: %s", w, i, r.Code, r.Stderr)
				}
			}
		}()
	}
	reads := 0
	for _, args := range readers {
		rg.Add(1)
		go until(done, &rg, func() {
			r := s.run(db, nil, args...)
			mu.Lock()
			reads++
			mu.Unlock()
			if r.Code != 0 || busyMessage(r.Stderr) {
				report("reader %v: exit %d: %s", args, r.Code, r.Stderr)
			}
		})
	}
	// Hooks during the storm: each exits 0 within its deadline (2 s by
	// default; 1 s of slack for process start on a loaded machine).
	hooks := 0
	if s.has("hook") {
		for _, name := range stormEvents {
			in, err := claudeEvent(s.fixtures, name)
			if err != nil {
				return err
			}
			rg.Add(1)
			go until(done, &rg, func() {
				r := s.run(db, in, "hook", "claude")
				mu.Lock()
				hooks++
				mu.Unlock()
				if r.Code != 0 || r.Wall > 3*time.Second {
					report("hook %s: exit %d after %v: %s", name, r.Code, r.Wall, r.Stderr)
				}
			})
		}
	}
	wg.Wait()
	close(done)
	rg.Wait()
	if len(problems) > 0 {
		return fmt.Errorf("%d+ failed calls, first: %s", len(problems), strings.Join(problems, "; "))
	}
	n, err := count(db, "observations")
	if err != nil {
		return err
	}
	if want := 16*perWriter + 1; n != want {
		return fmt.Errorf("%d observations after %d writes, want exactly %d", n, want, want)
	}
	d, err := store.Open(context.Background(), db, store.Options{NoMigrate: true})
	if err != nil {
		return err
	}
	defer d.Close()
	var distinct int
	if err := d.SQL().Get(&distinct, `SELECT count(DISTINCT title) FROM observations`); err != nil {
		return err
	}
	if distinct != n {
		return fmt.Errorf("%d distinct titles among %d observations: a write landed twice", distinct, n)
	}
	fmt.Printf("     16 writers x %d observations, %d reads and %d hook calls meanwhile\n", perWriter, reads, hooks)
	return s.healthy(db)
}

// until calls fn again and again until done is closed, then marks wg done.
func until(done <-chan struct{}, wg *sync.WaitGroup, fn func()) {
	defer wg.Done()
	for {
		select {
		case <-done:
			return
		default:
		}
		fn()
	}
}

// importFile writes n generated observations as one interchange file.
func (s *stress) importFile(name string, n int) (string, int, error) {
	return s.importFileWith(name, n, "")
}

// importFileWith is importFile with prefix for the ids, so that files of
// different prefixes hold different records.
func (s *stress) importFileWith(name string, n int, prefix string) (string, int, error) {
	p := filepath.Join(s.dir, name)
	var buf bytes.Buffer
	enc := interchange.NewEncoder(&buf)
	obs := 0
	err := benchgen.Generate(benchgen.Options{Observations: n, Seed: 3, Projects: 3, Prefix: prefix}, func(r memory.Record) error {
		if r.Kind == memory.KindObservation {
			obs++
		}
		return enc.Encode(r)
	})
	if err == nil {
		err = enc.Flush()
	}
	if err == nil {
		err = os.WriteFile(p, buf.Bytes(), 0o644)
	}
	return p, obs, err
}

// killAfter starts mem, kills it with SIGKILL after d (if it is still
// running) and reports whether the kill landed before it finished.
func (s *stress) killAfter(db string, d time.Duration, args ...string) (killed bool, err error) {
	return s.killWhen(db, nil, d, args...)
}

// killWhen starts mem, waits until ready reports true (nil: at once), then
// kills it with SIGKILL after d (if it is still running) and reports
// whether the kill landed before it finished.
func (s *stress) killWhen(db string, ready func() bool, d time.Duration, args ...string) (killed bool, err error) {
	cmd := exec.Command(s.mem, args...)
	cmd.Env = s.env(db)
	cmd.Dir = s.dir
	if err := cmd.Start(); err != nil {
		return false, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for ready != nil && !ready() {
		select {
		case <-exited:
			return false, nil
		case <-time.After(time.Millisecond):
		}
	}
	select {
	case <-exited:
		return false, nil
	case <-time.After(d):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-exited
		return true, nil
	}
}

// crashImport: kill -9 during a large import, many times. Afterwards the
// database is healthy and holds all of the file or none of it; a rerun
// completes.
func (s *stress) crashImport() error {
	file, obs, err := s.importFile("crash-import.jsonl", s.n(3000, 20000))
	if err != nil {
		return err
	}
	db := filepath.Join(s.dir, "crash-import.db")
	// The file exists and is migrated: crash-migrate covers the migration.
	if r := s.run(db, nil, "init"); r.Code != 0 {
		return fmt.Errorf("init: exit %d: %s", r.Code, r.Stderr)
	}
	// How long a whole import takes, to spread the kills over it.
	ref := filepath.Join(s.dir, "crash-import-ref.db")
	t0 := time.Now()
	if r := s.run(ref, nil, "import", file); r.Code != 0 {
		return fmt.Errorf("reference import: exit %d: %s", r.Code, r.Stderr)
	}
	full := time.Since(t0)
	kills := 0
	for i := range s.n(6, 30) {
		d := time.Duration(s.rng.Int64N(int64(full)))
		killed, err := s.killAfter(db, d, "import", file)
		if err != nil {
			return err
		}
		if killed {
			kills++
		}
		n, err := count(db, "observations")
		if err != nil && !killed {
			return fmt.Errorf("round %d: counting: %w", i, err)
		}
		if err == nil && n != 0 && n != obs {
			return fmt.Errorf("round %d (killed after %v): %d observations, want 0 or %d", i, d, n, obs)
		}
		if err := s.healthy(db); err != nil {
			return fmt.Errorf("round %d (killed after %v): %w", i, d, err)
		}
		if n == obs {
			// Complete: start again from an empty file for the next round.
			for _, suf := range []string{"", "-wal", "-shm"} {
				os.Remove(db + suf)
			}
			if r := s.run(db, nil, "init"); r.Code != 0 {
				return fmt.Errorf("init: exit %d: %s", r.Code, r.Stderr)
			}
		}
	}
	if r := s.run(db, nil, "import", file); r.Code != 0 {
		return fmt.Errorf("rerun after the kills: exit %d: %s", r.Code, r.Stderr)
	}
	if n, err := count(db, "observations"); err != nil || n != obs {
		return fmt.Errorf("after the rerun: %d observations (%v), want %d", n, err, obs)
	}
	fmt.Printf("     %d of %d imports of %d observations killed mid-way (import takes %v)\n", kills, s.n(6, 30), obs, full.Round(time.Millisecond))
	return s.healthy(db)
}

// crashExport: kill -9 while `mem export -o FILE` writes, many times.
// FILE is afterwards the previous export, byte for byte, or the whole new
// one: never a part of either.
func (s *stress) crashExport() error {
	file, _, err := s.importFile("crash-export.jsonl", s.n(3000, 20000))
	if err != nil {
		return err
	}
	db := filepath.Join(s.dir, "crash-export.db")
	if r := s.run(db, nil, "import", file); r.Code != 0 {
		return fmt.Errorf("import: exit %d: %s", r.Code, r.Stderr)
	}
	out := filepath.Join(s.dir, "crash-export-out.jsonl")
	// The environment names a project of its own; export a generated one.
	export := []string{"export", "--project", benchgen.ProjectKey(0), "-o", out}
	// What a whole export writes, and how long it takes.
	t0 := time.Now()
	if r := s.run(db, nil, export...); r.Code != 0 {
		return fmt.Errorf("reference export: exit %d: %s", r.Code, r.Stderr)
	}
	full := time.Since(t0)
	whole, err := os.ReadFile(out)
	if err != nil || len(whole) < 1<<20 {
		return fmt.Errorf("reference export: %d bytes (%v), want a large one", len(whole), err)
	}
	previous := []byte("{\"kind\":\"previous export\"}\n")
	// Writing has begun once FILE changed or a file appeared beside it.
	temps := filepath.Join(s.dir, ".crash-export-out.jsonl.*")
	writing := func() bool {
		fi, err := os.Stat(out)
		m, _ := filepath.Glob(temps)
		return err != nil || fi.Size() != int64(len(previous)) || len(m) > 0
	}
	rounds, midway := s.n(8, 40), 0
	for i := range rounds {
		if err := os.WriteFile(out, previous, 0o600); err != nil {
			return err
		}
		m, _ := filepath.Glob(temps)
		for _, t := range m {
			os.Remove(t)
		}
		d := time.Duration(s.rng.Int64N(int64(full / 2)))
		killed, err := s.killWhen(db, writing, d, export...)
		if err != nil {
			return err
		}
		got, err := os.ReadFile(out)
		if err != nil {
			return fmt.Errorf("round %d (killed %v, %v into writing): %w", i, killed, d, err)
		}
		switch {
		case bytes.Equal(got, previous) && killed:
			midway++
		case bytes.Equal(got, previous):
			return fmt.Errorf("round %d: the export finished and left the previous file", i)
		case !bytes.Equal(got, whole):
			return fmt.Errorf("round %d (killed %v, %v into writing): the file is %d bytes, neither the previous export (%d) nor the new one (%d)",
				i, killed, d, len(got), len(previous), len(whole))
		}
	}
	fmt.Printf("     %d of %d exports of %d bytes killed while writing left the previous file intact, the others completed (an export takes %v)\n",
		midway, rounds, len(whole), full.Round(time.Millisecond))
	return s.healthy(db)
}

// crashMigrate: kill -9 while a process creates and migrates a fresh file;
// the next process completes the migration and the file is healthy.
func (s *stress) crashMigrate() error {
	// How long creating and migrating a file takes, to spread the kills over it.
	t0 := time.Now()
	if r := s.run(filepath.Join(s.dir, "crash-migrate-ref.db"), nil, "init"); r.Code != 0 {
		return fmt.Errorf("reference init: exit %d: %s", r.Code, r.Stderr)
	}
	full := time.Since(t0)
	kills, started := 0, 0
	rounds := s.n(10, 50)
	for i := range rounds {
		db := filepath.Join(s.dir, fmt.Sprintf("crash-migrate-%d.db", i))
		d := time.Duration(s.rng.Int64N(int64(full)))
		killed, err := s.killAfter(db, d, "init")
		if err != nil {
			return err
		}
		if killed {
			kills++
			if fi, err := os.Stat(db); err == nil && fi.Size() > 0 {
				started++ // killed after it began writing the file
			}
		}
		if r := s.run(db, nil, "init"); r.Code != 0 {
			return fmt.Errorf("round %d (killed after %v): rerun exit %d: %s", i, d, r.Code, r.Stderr)
		}
		if err := s.healthy(db); err != nil {
			return fmt.Errorf("round %d (killed after %v): %w", i, d, err)
		}
		os.Remove(db)
	}
	fmt.Printf("     %d of %d fresh-file migrations killed (%d after the file was begun; a whole init takes %v)\n",
		kills, rounds, started, full.Round(time.Millisecond))
	return nil
}

// crashSummarize: kill -9 during `mem summarize --pending`; afterwards the
// database is healthy and a rerun completes.
func (s *stress) crashSummarize() error {
	if !s.has("summarize") {
		return skipped{"`mem summarize` is not in this build yet"}
	}
	file, _, err := s.importFile("crash-summarize.jsonl", s.n(2000, 10000))
	if err != nil {
		return err
	}
	db := filepath.Join(s.dir, "crash-summarize.db")
	if r := s.run(db, nil, "import", file); r.Code != 0 {
		return fmt.Errorf("import: exit %d: %s", r.Code, r.Stderr)
	}
	// Sessions without a summary are what --pending works on: every round
	// starts with none, so that each run has the whole job to do. Deleting
	// a summary is forgetting it, whose tombstone keeps the session from
	// being summarized again from the same activity: those go too, so the
	// sessions are as if never summarized.
	unsummarize := func() error {
		d, err := store.Open(context.Background(), db, store.Options{NoMigrate: true})
		if err != nil {
			return err
		}
		defer d.Close()
		_, err = d.SQL().Exec(`DELETE FROM summaries; DELETE FROM sync_tombstones WHERE key LIKE 'summary:%'`)
		return err
	}
	if err := unsummarize(); err != nil {
		return err
	}
	t0 := time.Now()
	ref := filepath.Join(s.dir, "crash-summarize-ref.db")
	if err := copyFile(db, ref); err != nil {
		return err
	}
	if r := s.run(ref, nil, "summarize", "--pending"); r.Code != 0 {
		return fmt.Errorf("reference summarize: exit %d: %s", r.Code, r.Stderr)
	}
	full := time.Since(t0)
	kills := 0
	for i := range s.n(4, 20) {
		if err := unsummarize(); err != nil {
			return err
		}
		d := time.Duration(s.rng.Int64N(int64(full)))
		killed, err := s.killAfter(db, d, "summarize", "--pending")
		if err != nil {
			return err
		}
		if killed {
			kills++
		}
		if err := s.healthy(db); err != nil {
			return fmt.Errorf("round %d (killed after %v): %w", i, d, err)
		}
	}
	r := s.run(db, nil, "summarize", "--pending")
	if r.Code != 0 {
		return fmt.Errorf("rerun: exit %d: %s", r.Code, r.Stderr)
	}
	// The rerun did the whole job: a killed run's lease did not stop it.
	sessions, err := count(db, "sessions")
	if err != nil {
		return err
	}
	if sums, err := count(db, "summaries"); err != nil || sums != sessions {
		return fmt.Errorf("after the rerun: %d summaries (%v) for %d sessions: %s", sums, err, sessions, text.FirstLine(string(r.Stdout)))
	}
	fmt.Printf("     %d of %d summarize runs killed mid-way\n", kills, s.n(4, 20))
	return s.healthy(db)
}

// hookExitsZero runs every Claude Code fixture through the hook against db
// and fails when one does not exit 0 in time or prints invalid output, or
// when there is no fixture to run.
func (s *stress) hookExitsZero(db string) error {
	files, err := claudeEvents(s.fixtures)
	if err != nil {
		return err
	}
	if !s.has("hook") {
		return nil
	}
	for _, f := range files {
		in, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		r := s.run(db, in, "hook", "claude")
		if r.Code != 0 {
			return fmt.Errorf("hook with %s: exit %d: %s", filepath.Base(f), r.Code, r.Stderr)
		}
		if r.Wall > 10*time.Second {
			return fmt.Errorf("hook with %s took %v", filepath.Base(f), r.Wall)
		}
	}
	return nil
}

// asNobody runs mem as an unprivileged user, so that file permissions apply
// (root writes through them).
func (s *stress) asNobody(db string, args ...string) run {
	cmd := exec.Command(s.mem, args...)
	cmd.Env = s.env(db)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	r := run{Wall: time.Since(t0), Stdout: out.Bytes(), Stderr: errb.Bytes(), Code: -1}
	if cmd.ProcessState != nil {
		r.Code = cmd.ProcessState.ExitCode()
	} else if err != nil {
		r.Stderr = []byte(err.Error())
	}
	return r
}

// readOnly: a database the caller may read but not write. Writes fail with
// a clear error, quickly; nothing hangs.
func (s *stress) readOnly() error {
	dir := filepath.Join(s.dir, "ro")
	db := filepath.Join(dir, "mem.db")
	if r := s.run(db, nil, "observe", "--session", "s", "--type", "note", "--title", "before"); r.Code != 0 {
		return fmt.Errorf("setup: %s", r.Stderr)
	}
	if os.Geteuid() != 0 {
		if err := os.Chmod(db, 0o444); err != nil {
			return err
		}
		defer os.Chmod(db, 0o644)
		r := s.run(db, nil, "observe", "--session", "s", "--type", "note", "--title", "after")
		return s.expectReadOnly(r, db, "observe as the owner of a 0444 file")
	}
	// As root, run mem as nobody on a root-owned file and folder.
	if err := os.Chmod(s.dir, 0o755); err != nil {
		return err
	}
	r := s.asNobody(db, "observe", "--session", "s", "--type", "note", "--title", "after")
	if r.Code == -1 {
		return skipped{"cannot run mem as an unprivileged user: " + string(r.Stderr)}
	}
	if err := s.expectReadOnly(r, db, "observe on a file it cannot write"); err != nil {
		return err
	}
	g := s.asNobody(db, "get", "1")
	s.badRows = append(s.badRows, [4]string{"database file the caller cannot write (reading)", "mem get 1", fmt.Sprint(g.Code), text.FirstLine(strings.TrimSpace(string(g.Stdout) + string(g.Stderr)))})
	if g.Wall > 10*time.Second {
		return fmt.Errorf("mem get on a read-only database took %v", g.Wall)
	}
	return nil
}

func (s *stress) expectReadOnly(r run, db, what string) error {
	s.badRows = append(s.badRows, [4]string{"database file the caller cannot write", "mem observe ...", fmt.Sprint(r.Code), text.FirstLine(string(r.Stderr))})
	if r.Code == 0 {
		return fmt.Errorf("%s: succeeded", what)
	}
	if !strings.Contains(strings.ToLower(string(r.Stderr)), "read-only") && !strings.Contains(strings.ToLower(string(r.Stderr)), "permission") {
		return fmt.Errorf("%s: unclear error: %s", what, r.Stderr)
	}
	if r.Wall > 10*time.Second {
		return fmt.Errorf("%s took %v", what, r.Wall)
	}
	if n, err := count(db, "observations"); err != nil || n != 1 {
		return fmt.Errorf("%s: %d observations (%v), want the 1 from before", what, n, err)
	}
	return s.hookExitsZero(db)
}

// diskFull: a full disk (a 1 MiB tmpfs, when this process may mount one)
// and a file-size limit (ulimit -f) each stop an import part-way. mem says
// why, writes nothing, and the database stays healthy.
func (s *stress) diskFull() error {
	file, _, err := s.importFile("disk-full.jsonl", 3000)
	if err != nil {
		return err
	}
	mnt := filepath.Join(s.dir, "tmpfs")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		return err
	}
	tmpfs := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt).Run() == nil
	if tmpfs {
		defer exec.Command("umount", mnt).Run()
		if err := s.fullImport(filepath.Join(mnt, "mem.db"), file, "disk full during import (1 MiB tmpfs)", nil); err != nil {
			return err
		}
	}
	// 1 MiB file-size limit: enough to open, far too little for 3,000 observations.
	if err := s.fullImport(filepath.Join(s.dir, "disk-full.db"), file, "file-size limit reached during import (ulimit -f 1024)",
		[]string{"bash", "-c", `ulimit -f 1024 && exec "$0" "$@"`}); err != nil {
		return err
	}
	if !tmpfs {
		fmt.Println("     no tmpfs (mount refused): only the file-size limit was tried")
	}
	return nil
}

func (s *stress) fullImport(db, file, what string, wrap []string) error {
	if r := s.run(db, nil, "init"); r.Code != 0 {
		return fmt.Errorf("init: %s", r.Stderr)
	}
	argv := append(append(wrap, s.mem), "import", file)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = s.env(db)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	t0 := time.Now()
	_ = cmd.Run()
	wall := time.Since(t0)
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	s.badRows = append(s.badRows, [4]string{what, "mem import FILE", fmt.Sprint(code), text.FirstLine(errb.String())})
	msg := strings.ToLower(errb.String())
	switch {
	case code == 0:
		return fmt.Errorf("%s: the import succeeded", what)
	case !strings.Contains(msg, "full") && !strings.Contains(msg, "cannot write"):
		return fmt.Errorf("%s: exit %d, unclear error: %q", what, code, errb.String())
	case wall > 30*time.Second:
		return fmt.Errorf("%s: took %v", what, wall)
	}
	if n, err := count(db, "observations"); err != nil || n != 0 {
		return fmt.Errorf("%s: %d observations afterwards (%v), want 0", what, n, err)
	}
	if err := s.hookExitsZero(db); err != nil {
		return err
	}
	return s.healthy(db)
}

// garbage: the database file replaced by random bytes, or cut short. mem
// refuses it with a clear error, leaves it byte for byte as it was, and does
// not hang.
func (s *stress) garbage() error {
	db := filepath.Join(s.dir, "garbage.db")
	junk := make([]byte, 64<<10)
	for i := range junk {
		junk[i] = byte(s.rng.UintN(256))
	}
	if err := os.WriteFile(db, junk, 0o644); err != nil {
		return err
	}
	before := sha256.Sum256(junk)
	for _, args := range [][]string{{"get", "1"}, {"observe", "--session", "s", "--type", "note", "--title", "x"}, {"doctor"}, {"import", "-"}} {
		r := s.run(db, []byte{}, args...)
		s.badRows = append(s.badRows, [4]string{"database file replaced by random bytes", "mem " + strings.Join(args, " "), fmt.Sprint(r.Code), text.FirstLine(string(r.Stderr))})
		if r.Code == 0 {
			return fmt.Errorf("mem %v on a garbage file succeeded", args)
		}
		if r.Wall > 10*time.Second {
			return fmt.Errorf("mem %v on a garbage file took %v", args, r.Wall)
		}
	}
	after, err := os.ReadFile(db)
	if err != nil {
		return err
	}
	if sha256.Sum256(after) != before {
		return errors.New("mem changed a garbage database file")
	}
	if err := s.hookExitsZero(db); err != nil {
		return err
	}
	// A real database cut in half: SQLite header intact, pages missing.
	cut := filepath.Join(s.dir, "cut.db")
	file, _, err := s.importFile("cut.jsonl", 2000)
	if err != nil {
		return err
	}
	if r := s.run(cut, nil, "import", file); r.Code != 0 {
		return fmt.Errorf("import: %s", r.Stderr)
	}
	fi, err := os.Stat(cut)
	if err != nil {
		return err
	}
	if err := os.Truncate(cut, fi.Size()/2); err != nil {
		return err
	}
	for _, args := range [][]string{{"doctor"}, {"get", "1500"}, {"export"}} {
		r := s.run(cut, nil, args...)
		s.badRows = append(s.badRows, [4]string{"database file cut in half", "mem " + strings.Join(args, " "), fmt.Sprint(r.Code), text.FirstLine(string(r.Stderr) + string(r.Stdout))})
		if r.Wall > 10*time.Second {
			return fmt.Errorf("mem %v on a cut file took %v", args, r.Wall)
		}
		if args[0] == "doctor" && r.Code == 0 {
			return errors.New("mem doctor called a truncated database healthy")
		}
	}
	return s.hookExitsZero(cut)
}
