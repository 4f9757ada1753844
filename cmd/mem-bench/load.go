package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
)

// promptEvent returns a Claude Code UserPromptSubmit event of session with
// the given prompt text.
func (s *stress) promptEvent(session, text string) ([]byte, error) {
	raw, err := claudeEvent(s.fixtures, "user-prompt-submit.json")
	if err != nil {
		return nil, err
	}
	var ev map[string]any
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, err
	}
	ev["session_id"], ev["prompt"] = session, text
	return json.Marshal(ev)
}

// problems collects the first failures of concurrent workers.
type problems struct {
	mu   sync.Mutex
	list []string
	n    int
}

func (p *problems) add(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if len(p.list) < 5 {
		p.list = append(p.list, fmt.Sprintf(format, a...))
	}
}

func (p *problems) err() error {
	if p.n == 0 {
		return nil
	}
	return fmt.Errorf("%d failed calls, first: %s", p.n, strings.Join(p.list, "; "))
}

// hookLog returns what mem hook logged since offset, and the new offset.
func (s *stress) hookLog(offset int64) (string, int64) {
	b, _ := os.ReadFile(filepath.Join(s.dir, "home", ".local", "state", "mem", "hook.log"))
	if int64(len(b)) < offset {
		return "", int64(len(b))
	}
	return string(b[offset:]), int64(len(b))
}

// promptCheck reports prompts lost or stored twice: want[session] lists the
// texts sent to each session in the order sent (each after the previous one
// was answered), which must be their prompt numbers.
func promptCheck(db string, want map[string][]string) (lost, doubled, misordered int, err error) {
	d, err := store.Open(context.Background(), db, store.Options{NoMigrate: true})
	if err != nil {
		return 0, 0, 0, err
	}
	defer d.Close()
	for session, texts := range want {
		var got []struct {
			N    int    `db:"prompt_number"`
			Text string `db:"text"`
		}
		if err := d.SQL().Select(&got, `SELECT prompt_number, text FROM prompts WHERE session_id = ? ORDER BY prompt_number`, session); err != nil {
			return 0, 0, 0, err
		}
		seen := map[string]int{}
		for _, g := range got {
			seen[g.Text]++
		}
		for i, t := range texts {
			switch seen[t] {
			case 0:
				lost++
			case 1:
			default:
				doubled += seen[t] - 1
			}
			if i < len(got) && got[i].Text != t {
				misordered++
			}
		}
	}
	return lost, doubled, misordered, nil
}

// spoolLen counts the events waiting in db's spool.
func spoolLen(db string) int {
	n, _, _ := spool.Beside(db).Len()
	return n
}

// drain runs a command that applies the spool (any command that writes).
func (s *stress) drain(db string) error {
	if r := s.run(db, nil, "init"); r.Code != 0 {
		return fmt.Errorf("mem init after the load: exit %d: %s", r.Code, r.Stderr)
	}
	if n := spoolLen(db); n > 0 {
		return fmt.Errorf("%d events still spooled after mem init", n)
	}
	return nil
}

// mixedLoad: 40 processes of every kind write and read at once while a large
// import runs: every command exits 0 without a lock error, and every write
// acknowledged is stored exactly once.
func (s *stress) mixedLoad() error {
	db := filepath.Join(s.dir, "mixed.db")
	if r := s.run(db, nil, "observe", "--session", "seed", "--type", "note", "--title", "seed"); r.Code != 0 {
		return fmt.Errorf("seed: exit %d: %s", r.Code, r.Stderr)
	}
	big, bigObs, err := s.importFile("mixed-big.jsonl", s.n(4000, 20000))
	if err != nil {
		return err
	}
	rounds := s.n(3, 20)
	var p problems
	var mu sync.Mutex
	titles := map[string]bool{} // observations acknowledged by observe and MCP
	prompts := map[string][]string{}
	imported := bigObs
	ack := func(t string) {
		mu.Lock()
		titles[t] = true
		mu.Unlock()
	}
	check := func(what string, r run) bool {
		if r.Code != 0 || busyMessage(r.Stderr) {
			p.add("%s: exit %d: %s", what, r.Code, strings.TrimSpace(string(r.Stderr)))
			return false
		}
		return true
	}
	var wg sync.WaitGroup
	spawn := func(n int, fn func(w int)) {
		for w := range n {
			wg.Add(1)
			go func() { defer wg.Done(); fn(w) }()
		}
	}
	// The large import and a doctor start first, as a person would run them.
	spawn(1, func(int) { check("import (large)", s.run(db, nil, "import", big)) })
	spawn(2, func(w int) {
		for range rounds {
			check("doctor", s.run(db, nil, "doctor"))
		}
	})
	spawn(12, func(w int) { // hooks
		session := fmt.Sprintf("hook-%02d", w)
		for i := range rounds {
			text := fmt.Sprintf("mixed hook %d prompt %d", w, i)
			in, err := s.promptEvent(session, text)
			if err != nil {
				p.add("%v", err)
				return
			}
			if r := s.run(db, in, "hook", "claude"); r.Code != 0 {
				p.add("hook: exit %d: %s", r.Code, r.Stderr)
			}
			mu.Lock()
			prompts[session] = append(prompts[session], text)
			mu.Unlock()
		}
	})
	spawn(8, func(w int) { // observe
		for i := range rounds {
			t := fmt.Sprintf("mixed observe %d #%d", w, i)
			if check("observe", s.run(db, nil, "observe", "--session", fmt.Sprintf("obs-%d", w), "--type", "decision", "--title", t)) {
				ack(t)
			}
		}
	})
	spawn(4, func(w int) { // prompt
		session := fmt.Sprintf("prompt-%d", w)
		for i := range rounds {
			t := fmt.Sprintf("mixed prompt %d #%d", w, i)
			if check("prompt", s.run(db, nil, "prompt", "--session", session, "--text", t)) {
				mu.Lock()
				prompts[session] = append(prompts[session], t)
				mu.Unlock()
			}
		}
	})
	spawn(4, func(w int) { // context add, then consume gets it back
		session := fmt.Sprintf("ctx-%d", w)
		for i := range rounds {
			c := fmt.Sprintf("mixed context %d #%d", w, i)
			if !check("context add", s.run(db, nil, "context", "add", "--session", session, "--id", fmt.Sprint(i), "--content", c)) {
				continue
			}
			r := s.run(db, nil, "context", "consume", "--session", session)
			if check("context consume", r) && !strings.Contains(string(r.Stdout), c) {
				p.add("context consume of %s: %q does not hold %q", session, r.Stdout, c)
			}
		}
	})
	spawn(1, func(w int) { // import of small files, each new
		for i := range rounds {
			f, n, err := s.importFileWith(fmt.Sprintf("mixed-small-%d.jsonl", i), 20, fmt.Sprintf("small%d", i))
			if err != nil {
				p.add("%v", err)
				return
			}
			if check("import", s.run(db, nil, "import", f)) {
				mu.Lock()
				imported += n
				mu.Unlock()
			}
		}
	})
	spawn(2, func(w int) { // MCP save_observation
		saved, err := s.mcpSaves(db, fmt.Sprintf("mcp-%d", w), rounds)
		for _, t := range saved {
			ack(t)
		}
		if err != nil {
			p.add("mcp: %v", err)
		}
	})
	spawn(2, func(w int) {
		for range rounds {
			check("summarize", s.run(db, nil, "summarize", "--pending"))
		}
	})
	readers := [][]string{{"search", "backoff"}, {"get", "1"}, {"inject"}, {"stats"}}
	spawn(len(readers), func(w int) {
		for range rounds {
			check(readers[w][0], s.run(db, nil, readers[w]...))
		}
	})
	wg.Wait()
	if err := s.drain(db); err != nil {
		return err
	}
	if err := p.err(); err != nil {
		return err
	}
	lost, doubled, misordered, err := promptCheck(db, prompts)
	if err != nil {
		return err
	}
	d, err := store.Open(context.Background(), db, store.Options{NoMigrate: true})
	if err != nil {
		return err
	}
	defer d.Close()
	for t := range titles {
		var n int
		if err := d.SQL().Get(&n, `SELECT count(*) FROM observations WHERE title = ?`, t); err != nil {
			return err
		}
		if n != 1 {
			return fmt.Errorf("observation %q stored %d times, want once", t, n)
		}
	}
	var nimp int
	// Near-duplicates the nightly job folded count in the record they went into.
	if err := d.SQL().Get(&nimp, `SELECT coalesce(sum(occurrences), 0) FROM observations WHERE session_id LIKE 'bench%' OR session_id LIKE 'small%'`); err != nil {
		return err
	}
	fmt.Printf("     40 processes, %d rounds: %d observations and %d prompts acknowledged, %d imported; prompts lost %d, doubled %d, out of order %d\n",
		rounds, len(titles), len(prompts)*rounds, nimp, lost, doubled, misordered)
	if lost+doubled+misordered > 0 {
		return fmt.Errorf("prompts: %d lost, %d doubled, %d out of order", lost, doubled, misordered)
	}
	if nimp != imported {
		return fmt.Errorf("%d imported observations stored, want %d", nimp, imported)
	}
	return s.healthy(db)
}

// mcpSaves starts mem mcp and saves n observations through it; it returns
// the titles the server acknowledged.
func (s *stress) mcpSaves(db, session string, n int) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(s.mem, "mcp", "--session", session)
	cmd.Env, cmd.Dir = s.env(db), s.dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stress", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var saved []string
	for i := range n {
		t := fmt.Sprintf("mixed mcp %s #%d", session, i)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "save_observation",
			Arguments: map[string]any{"type": "decision", "title": t}})
		if err != nil {
			return saved, err
		}
		if res.IsError {
			b, _ := json.Marshal(res.Content)
			return saved, fmt.Errorf("save_observation: %s %s", b, stderr.String())
		}
		saved = append(saved, t)
	}
	return saved, nil
}

// lockedHooks: while another process holds the database for a long time,
// hooks answer at once (the lock adds under 100 ms to a hook) and their
// events are applied once the lock is released. Each hook on the locked
// database is paired with one on a free database run just after it, so that
// what the machine's load adds to both cancels out.
func (s *stress) lockedHooks() error {
	db := filepath.Join(s.dir, "locked.db")
	free := filepath.Join(s.dir, "free.db")
	for _, d := range []string{db, free} {
		if r := s.run(d, nil, "init"); r.Code != 0 {
			return fmt.Errorf("init: exit %d: %s", r.Code, r.Stderr)
		}
	}
	want := map[string][]string{}
	hook := func(d, session string, i int) (time.Duration, error) {
		text := fmt.Sprintf("%s prompt %d", session, i)
		in, err := s.promptEvent(session, text)
		if err != nil {
			return 0, err
		}
		r := s.run(d, in, "hook", "claude")
		if r.Code != 0 {
			return 0, fmt.Errorf("hook: exit %d: %s", r.Code, r.Stderr)
		}
		if d == db {
			want[session] = append(want[session], text)
		}
		return r.Wall, nil
	}
	hold := time.Duration(s.n(3, 30)) * time.Second
	for _, exclusive := range []bool{false, true} {
		label := "write-lock"
		if exclusive {
			label = "exclusive-lock"
		}
		bench, _ := os.Executable()
		cmd := exec.Command(bench, "hold-lock", "-db", db, "-for", hold.String(), fmt.Sprintf("-exclusive=%v", exclusive))
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		stop := func() { cmd.Process.Signal(syscall.SIGKILL); cmd.Wait() }
		line, _ := bufio.NewReader(out).ReadString('\n')
		if strings.TrimSpace(line) != "locked" {
			stop()
			return fmt.Errorf("hold-lock said %q", line)
		}
		before := spoolLen(db)
		t0 := time.Now()
		var locked, unlocked []time.Duration
		for i := 0; time.Since(t0) < hold-time.Second; i++ {
			w, err := hook(db, label, i)
			if err != nil {
				stop()
				return err
			}
			u, err := hook(free, label, i)
			if err != nil {
				stop()
				return err
			}
			locked, unlocked = append(locked, w), append(unlocked, u)
		}
		spooled := spoolLen(db) - before
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("hold-lock: %w", err)
		}
		slices.Sort(locked)
		slices.Sort(unlocked)
		added := percentile(locked, 50) - percentile(unlocked, 50)
		fmt.Printf("     %s held %s: %d hooks, p50 %s max %s ms against %s and %s ms on a free database: +%s ms\n", label, hold,
			len(locked), ms(percentile(locked, 50)), ms(locked[len(locked)-1]), ms(percentile(unlocked, 50)),
			ms(unlocked[len(unlocked)-1]), ms(added))
		if added > 100*time.Millisecond {
			return fmt.Errorf("%s: the lock adds %s to a hook (p50), want under 100 ms", label, added)
		}
		if spooled != len(locked) {
			return fmt.Errorf("%s: %d events spooled, want %d", label, spooled, len(locked))
		}
	}
	if err := s.drain(db); err != nil {
		return err
	}
	lost, doubled, misordered, err := promptCheck(db, want)
	if err != nil {
		return err
	}
	if lost+doubled+misordered > 0 {
		return fmt.Errorf("after the lock: %d events lost, %d doubled, %d out of order", lost, doubled, misordered)
	}
	return nil
}

// spoolKill: hooks spool while the database is locked; then processes that
// drain the spool are killed with SIGKILL at random moments until one
// finishes, and the files are put back as a kill between a commit and the
// removal leaves them. Every event is applied exactly once, in order.
func (s *stress) spoolKill() error {
	db := filepath.Join(s.dir, "spoolkill.db")
	if r := s.run(db, nil, "init"); r.Code != 0 {
		return fmt.Errorf("init: exit %d: %s", r.Code, r.Stderr)
	}
	want := map[string][]string{}
	rounds := s.n(2, 10)
	kills, midway := 0, 0
	for round := range rounds {
		unlock, err := holdLockUntilKilled(db)
		if err != nil {
			return err
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		for w := range 8 {
			session := fmt.Sprintf("kill-%d-%d", round, w)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 5 {
					text := fmt.Sprintf("spool kill %d %d %d", round, w, i)
					in, _ := s.promptEvent(session, text)
					s.run(db, in, "hook", "claude")
					mu.Lock()
					want[session] = append(want[session], text)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		unlock()
		if n := spoolLen(db); n != 40 {
			return fmt.Errorf("round %d: %d events spooled under the lock, want 40", round, n)
		}
		// A kill between a commit and the removal of its file leaves the
		// file behind: keep a copy of the spool to put back afterwards, as
		// random kills rarely land in that instant.
		sp := spool.Beside(db).Path()
		files, err := os.ReadDir(sp)
		if err != nil {
			return err
		}
		saved := map[string][]byte{}
		for _, f := range files {
			if strings.HasSuffix(f.Name(), ".json") && !strings.HasPrefix(f.Name(), ".") {
				if saved[f.Name()], err = os.ReadFile(filepath.Join(sp, f.Name())); err != nil {
					return err
				}
			}
		}
		// Drain with processes killed at random points until one finishes.
		for n := spoolLen(db); n > 0; {
			killed, err := s.killAfter(db, time.Duration(5+s.rng.IntN(120))*time.Millisecond, "init")
			if err != nil {
				return err
			}
			left := spoolLen(db)
			if killed {
				kills++
				if left > 0 && left < n {
					midway++
				}
			}
			n = left
		}
		for name, b := range saved {
			if err := os.WriteFile(filepath.Join(sp, name), b, 0o600); err != nil {
				return err
			}
		}
		if err := s.drain(db); err != nil {
			return err
		}
	}
	lost, doubled, misordered, err := promptCheck(db, want)
	if err != nil {
		return err
	}
	fmt.Printf("     %d rounds of 40 spooled events, %d drains killed (%d in the middle): lost %d, doubled %d, out of order %d\n",
		rounds, kills, midway, lost, doubled, misordered)
	if lost+doubled+misordered > 0 {
		return fmt.Errorf("%d events lost, %d doubled, %d out of order", lost, doubled, misordered)
	}
	return s.healthy(db)
}
