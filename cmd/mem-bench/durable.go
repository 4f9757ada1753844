package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/store"
)

// spin keeps one CPU busy for a while: the other work of a loaded machine
// (a build, a test run, an indexer).
func spin(args []string) error {
	fs := flag.NewFlagSet("spin", flag.ExitOnError)
	d := fs.Duration("for", time.Minute, "how long to keep a CPU busy")
	fs.Parse(args)
	runtime.GOMAXPROCS(1)
	end := time.Now().Add(*d)
	for n := 0; ; n++ {
		if n%1_000_000 == 0 && time.Now().After(end) {
			return nil
		}
	}
}

// saturate starts n processes that keep a CPU busy each, and returns what
// stops them.
func saturate(n int) (stop func(), err error) {
	bench, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			c.Process.Signal(syscall.SIGKILL)
			c.Wait()
		}
	}
	for range n {
		c := exec.Command(bench, "spin", "-for", "30m")
		if err := c.Start(); err != nil {
			stop()
			return nil, err
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

// editorKill is when the editor kills a hook: the timeout mem install gives it.
const editorKill = agent.EditorTimeout

// hookBurstSaturated is hook-burst with the CPU saturated by 8 busy
// processes in the same run, and each hook killed, as an editor does, at
// its timeout: whatever a hook could not finish, its event is applied
// later, once, in order.
func (s *stress) hookBurstSaturated() error {
	stop, err := saturate(8)
	if err != nil {
		return err
	}
	defer stop()
	return s.burst("burst-saturated.db", s.n(10, 20), editorKill)
}

// hookBurst: 48 hook processes at once, 10 events each; every event stored
// exactly once, in order, and every hook answered within its deadline.
func (s *stress) hookBurst() error {
	return s.burst("burst.db", s.n(10, 20), 0)
}

// burst runs 48 hook processes at once, each events prompts of its own
// session in turn; kill, when set, kills a hook that runs that long (the
// editor's timeout). Without kill, a hook past its deadline fails the
// check; with it (a saturated machine) lateness is reported, and only what
// is lost, doubled or out of order fails it.
func (s *stress) burst(name string, each int, kill time.Duration) error {
	db := filepath.Join(s.dir, name)
	if r := s.run(db, nil, "init"); r.Code != 0 {
		return fmt.Errorf("init: exit %d: %s", r.Code, r.Stderr)
	}
	_, off := s.hookLog(0)
	workers := 48
	want := map[string][]string{}
	var p problems
	var mu sync.Mutex
	var walls, cpus []time.Duration
	killed := 0
	var wg sync.WaitGroup
	for w := range workers {
		session := fmt.Sprintf("burst-%02d", w)
		for i := range each {
			want[session] = append(want[session], fmt.Sprintf("burst worker %d prompt %d about exponential backoff", w, i))
		}
		prompts := want[session] // the map grows while the workers run
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, text := range prompts {
				in, err := s.promptEvent(session, text)
				if err != nil {
					p.add("%v", err)
					return
				}
				r, err := proc{Bin: s.mem, Args: []string{"hook", "claude"}, Env: s.env(db), Stdin: in, Dir: s.dir, Timeout: kill}.run()
				if err != nil {
					r = run{Code: -2, Stderr: []byte(err.Error())}
				}
				mu.Lock()
				walls = append(walls, r.Wall)
				cpus = append(cpus, r.CPU)
				if r.Code == -1 && kill > 0 {
					killed++
				}
				mu.Unlock()
				if r.Code != 0 && (kill == 0 || r.Code != -1) {
					p.add("hook %s: exit %d after %v: %s", session, r.Code, r.Wall, r.Stderr)
				}
			}
		}()
	}
	wg.Wait()
	// A hook's deadline counts from its start: the wall time measured here
	// adds the wait for a CPU to start it on, which is the machine's.
	log, _ := s.hookLog(off)
	late := strings.Count(log, "no answer within the deadline")
	if late > 0 && kill == 0 {
		p.add("%d hooks missed their deadline", late)
	}
	spooled := spoolLen(db)
	if err := s.drain(db); err != nil {
		return err
	}
	lost, doubled, misordered, err := promptCheck(db, want)
	if err != nil {
		return err
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	fmt.Printf("     %d hooks x %d events: %d spooled at the end of the burst, lost %d, doubled %d, out of order %d; hook p50 %s p99 %s max %s ms, cpu p50 %s ms; %d past the deadline, %d killed at %s; load %s\n",
		workers, each, spooled, lost, doubled, misordered, ms(percentile(walls, 50)), ms(percentile(walls, 99)), ms(walls[len(walls)-1]),
		ms(percentile(cpus, 50)), late, killed, kill, loadavg())
	if lost+doubled+misordered > 0 {
		return fmt.Errorf("%d of %d events lost, %d doubled, %d out of order (%v)", lost, workers*each, doubled, misordered, p.err())
	}
	return p.err()
}

// freshBurst: a brand-new database hit by 48 hook processes at once (16
// session starts, 16 prompts, 16 edits, each of its own session), 5 rounds,
// the CPU saturated by 8 busy processes and each hook killed at the editor's
// timeout: every event is recorded or
// spooled, and applied by the next command, and no record is left half
// written in the spool.
func (s *stress) freshBurst() error {
	rounds := 5
	stop, err := saturate(8)
	if err != nil {
		return err
	}
	defer stop()
	start, err := claudeEvent(s.fixtures, "session-start-startup.json")
	if err != nil {
		return err
	}
	edit, err := claudeEvent(s.fixtures, "post-tool-use-edit.json")
	if err != nil {
		return err
	}
	with := func(raw []byte, set map[string]any) ([]byte, error) {
		var ev map[string]any
		if err := json.Unmarshal(raw, &ev); err != nil {
			return nil, err
		}
		for k, v := range set {
			ev[k] = v
		}
		return json.Marshal(ev)
	}
	var walls []time.Duration
	killed, leftHalf := 0, 0
	for round := range rounds {
		db := filepath.Join(s.dir, fmt.Sprintf("fresh-burst-%d", round), "mem.db")
		if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
			return err
		}
		var events [][]byte
		prompts := map[string][]string{}
		for i := range 16 {
			ev, err := with(start, map[string]any{"session_id": fmt.Sprintf("start-%d", i), "cwd": s.dir})
			if err != nil {
				return err
			}
			events = append(events, ev)
			session, text := fmt.Sprintf("prompt-%d", i), fmt.Sprintf("fresh round %d prompt %d", round, i)
			if ev, err = s.promptEvent(session, text); err != nil {
				return err
			}
			events = append(events, ev)
			prompts[session] = []string{text}
			ev, err = with(edit, map[string]any{"session_id": fmt.Sprintf("edit-%d", i), "cwd": s.dir,
				"tool_input": map[string]any{"file_path": filepath.Join(s.dir, fmt.Sprintf("file%d.go", i)),
					"old_string": fmt.Sprintf("a := %d", i), "new_string": fmt.Sprintf("a := %d + 1", i)}})
			if err != nil {
				return err
			}
			events = append(events, ev)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var p problems
		for _, in := range events {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := proc{Bin: s.mem, Args: []string{"hook", "claude"}, Env: s.env(db), Stdin: in, Dir: s.dir, Timeout: editorKill}.run()
				mu.Lock()
				defer mu.Unlock()
				walls = append(walls, r.Wall)
				switch {
				case err != nil:
					p.add("%v", err)
				case r.Code == -1:
					killed++
				case r.Code != 0:
					p.add("hook: exit %d: %s", r.Code, r.Stderr)
				}
			}()
		}
		wg.Wait()
		if err := p.err(); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		// What a killed write leaves: a temporary file never renamed.
		half, err := halfWritten(db)
		if err != nil {
			return err
		}
		leftHalf += len(half)
		if err := s.drain(db); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		if len(half) > 0 {
			return fmt.Errorf("round %d: half-written spool files left: %s", round, strings.Join(half, ", "))
		}
		lost, doubled, _, err := promptCheck(db, prompts)
		if err != nil {
			return err
		}
		d, err := store.Open(context.Background(), db, store.Options{NoMigrate: true})
		if err != nil {
			return err
		}
		var starts, edits int
		err = d.SQL().Get(&starts, `SELECT count(*) FROM sessions WHERE id LIKE 'start-%'`)
		if err == nil {
			err = d.SQL().Get(&edits, `SELECT count(*) FROM observations WHERE session_id LIKE 'edit-%'`)
		}
		d.Close()
		if err != nil {
			return err
		}
		if lost+doubled > 0 || starts != 16 || edits != 16 {
			log, _ := s.hookLog(0)
			return fmt.Errorf("round %d: %d of 16 session starts, %d of 16 edits recorded; prompts lost %d, doubled %d; hook.log: %s",
				round, starts, edits, lost, doubled, lastLines(log, 5))
		}
	}
	slices.Sort(walls)
	fmt.Printf("     %d rounds of 48 hooks on a new database: every event recorded once, %d killed at %s, %d half-written spool files; hook p50 %s p99 %s ms; load %s\n",
		rounds, killed, editorKill, leftHalf, ms(percentile(walls, 50)), ms(percentile(walls, 99)), loadavg())
	return nil
}

// halfWritten lists the temporary files in db's spool (and its held
// records' folder), which only a write killed half-way leaves.
func halfWritten(db string) ([]string, error) {
	var out []string
	sp := db + ".spool"
	for _, dir := range []string{sp, filepath.Join(sp, "live")} {
		names, err := os.ReadDir(dir)
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		for _, n := range names {
			if strings.HasPrefix(n.Name(), ".") && strings.Contains(n.Name(), ".json.") {
				out = append(out, filepath.Join(filepath.Base(dir), n.Name()))
			}
		}
	}
	return out, nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// drainStart: session starts that apply the events queued while another
// process held the database (48 a round: prompts and edits), on a database
// of 20,000 imported observations. Reported: the CPU and wall time of each
// such session start, and the events left; nothing may be lost.
func (s *stress) drainStart() error {
	if s.short && s.only == "" {
		return skipped{"a measurement (half a minute): -only drain-start runs it"}
	}
	db := filepath.Join(s.dir, "drain-start.db")
	f, _, err := s.importFile("drain-start.jsonl", s.n(20000, 100000))
	if err != nil {
		return err
	}
	if r := s.run(db, nil, "import", f); r.Code != 0 {
		return fmt.Errorf("import: exit %d: %s", r.Code, r.Stderr)
	}
	start, err := claudeEvent(s.fixtures, "session-start-startup.json")
	if err != nil {
		return err
	}
	want := map[string][]string{}
	var cpus, walls []time.Duration
	rounds := s.n(8, 20)
	for round := range rounds {
		unlock, err := holdLockUntilKilled(db)
		if err != nil {
			return err
		}
		for i := range 48 {
			session := fmt.Sprintf("drain-%d-%d", round, i%8)
			text := fmt.Sprintf("round %d event %d: why does the refund handler retry %d times", round, i, i)
			in, err := s.promptEvent(session, text)
			if err != nil {
				return err
			}
			s.run(db, in, "hook", "claude")
			want[session] = append(want[session], text)
		}
		unlock()
		r := s.run(db, start, "hook", "claude")
		if r.Code != 0 {
			return fmt.Errorf("session start: exit %d: %s", r.Code, r.Stderr)
		}
		cpus, walls = append(cpus, r.CPU), append(walls, r.Wall)
	}
	left := spoolLen(db)
	if err := s.drain(db); err != nil {
		return err
	}
	lost, doubled, misordered, err := promptCheck(db, want)
	if err != nil {
		return err
	}
	slices.Sort(cpus)
	slices.Sort(walls)
	fmt.Printf("     %d session starts, each after 48 queued events: cpu p50 %s max %s ms, wall p50 %s max %s ms; %d events left for the next process; lost %d, doubled %d, out of order %d; load %s\n",
		rounds, ms(percentile(cpus, 50)), ms(cpus[len(cpus)-1]), ms(percentile(walls, 50)), ms(walls[len(walls)-1]), left, lost, doubled, misordered, loadavg())
	if lost+doubled+misordered > 0 {
		return fmt.Errorf("%d events lost, %d doubled, %d out of order", lost, doubled, misordered)
	}
	return nil
}

// holdLockUntilKilled starts hold-lock on db, waits until it holds the
// lock, and returns what kills it.
func holdLockUntilKilled(db string) (unlock func(), err error) {
	bench, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bench, "hold-lock", "-db", db, "-for", "600s")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	unlock = func() { cmd.Process.Signal(syscall.SIGKILL); cmd.Wait() }
	if line, _ := bufio.NewReader(out).ReadString('\n'); strings.TrimSpace(line) != "locked" {
		unlock()
		return nil, fmt.Errorf("hold-lock said %q", line)
	}
	return unlock, nil
}
