// Command benchcontext measures prompt-time context as a whole process: it
// builds a JSONL memory of N observations in a temporary folder, imports it
// with `mem import`, then runs the given mem command (by default the
// UserPromptSubmit hook of Claude Code) once per prompt, each time in a new
// session, and prints the median and the 90th percentile of wall time.
//
//	go build -o /tmp/mem ./cmd/mem
//	go run ./scripts/benchcontext -mem /tmp/mem -n 100000 -runs 50
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

func main() {
	memBin := flag.String("mem", "mem", "mem binary")
	n := flag.Int("n", 100000, "observations")
	runs := flag.Int("runs", 50, "measured runs")
	mode := flag.String("mode", "hook", "hook (mem hook claude, UserPromptSubmit) or cli (mem context prompt)")
	keep := flag.String("dir", "", "work folder (default: a new temporary one, removed after)")
	flag.Parse()
	if err := run(*memBin, *n, *runs, *mode, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "benchcontext:", err)
		os.Exit(1)
	}
}

const project = "bench/shop-api"

var (
	nouns = []string{"Order", "Refund", "Payment", "Invoice", "Customer", "Cart", "Gateway", "Ledger", "Coupon",
		"Shipment", "Inventory", "Price", "Tax", "Webhook", "Session", "Token", "Cache", "Queue", "Report", "Audit"}
	suffixes = []string{"Service", "Handler", "Client", "Store", "Repository", "Worker", "Policy", "Validator",
		"Builder", "Manager"}
	verbs = []string{"retries", "validates", "caches", "logs", "rejects", "batches", "locks", "rounds", "signs", "expires"}
	types = []string{"decision", "problem", "warning", "refactor", "success", "discovery", "feature", "bugfix",
		"pattern", "change", "note"}
	words = strings.Fields("the a when after before each every transient gateway error timeout idempotent key " +
		"backoff exponential constant duplicate missing stale header currency rounding cents limit batch nightly " +
		"migration index query slow fast lock contention retry budget config flag default value test fixture")
)

func symbol(r *rand.Rand) string {
	return nouns[r.IntN(len(nouns))] + suffixes[r.IntN(len(suffixes))]
}

func sentence(r *rand.Rand, k int) string {
	out := make([]string, k)
	for i := range out {
		out[i] = words[r.IntN(len(words))]
	}
	return strings.Join(out, " ")
}

func file(r *rand.Rand) string {
	return fmt.Sprintf("internal/%s/%s.go", strings.ToLower(nouns[r.IntN(len(nouns))]),
		strings.ToLower(suffixes[r.IntN(len(suffixes))]))
}

func build(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	r := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	perSession := 50
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i) * time.Minute)
		sid := fmt.Sprintf("hist-%05d", i/perSession)
		if i%perSession == 0 {
			if err := enc.Encode(map[string]any{"kind": "session", "id": sid, "project": project, "agent": "claude-code",
				"agent_type": "build", "cwd": "/src/shop-api", "started_at": at, "last_activity_at": at.Add(time.Hour),
				"ended_at": at.Add(time.Hour), "status": "ended", "prompt_count": 1, "files_read": []string{}}); err != nil {
				return err
			}
		}
		sym := symbol(r)
		title := fmt.Sprintf("%s %s %s", sym, verbs[r.IntN(len(verbs))], sentence(r, 4))
		o := map[string]any{"kind": "observation", "uuid": fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			"session_id": sid, "project": project, "type": types[r.IntN(len(types))], "title": title,
			"narrative": sentence(r, 30) + " " + sym + " " + sentence(r, 10),
			"facts":     []string{sentence(r, 6), sentence(r, 6)}, "concepts": []string{strings.ToLower(nouns[r.IntN(len(nouns))])},
			"files_read": []string{file(r)}, "files_modified": []string{file(r)}, "agent_type": "build",
			"created_at": at}
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	return w.Flush()
}

func run(memBin string, n, runs int, mode, dir string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "benchcontext")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	env := append(os.Environ(), "MEM_DB="+filepath.Join(dir, "mem.db"), "MEM_PROJECT="+project,
		"HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	if _, err := os.Stat(filepath.Join(dir, "mem.db")); err != nil {
		jsonl := filepath.Join(dir, "memory.jsonl")
		t0 := time.Now()
		if err := build(jsonl, n); err != nil {
			return err
		}
		cmd := exec.Command(memBin, "import", jsonl)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("mem import: %v: %s", err, out)
		}
		fmt.Printf("built and imported %d observations in %s\n", n, time.Since(t0).Round(time.Millisecond))
	}
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(3, 4))
	var times, cpu []time.Duration
	hits := 0
	for i := 0; i < runs+3; i++ {
		prompt := fmt.Sprintf("How does the %s handle this? Also look at %s and the %s", symbol(r), file(r),
			strings.ToLower(nouns[r.IntN(len(nouns))])+"_id")
		sid := fmt.Sprintf("bench-%d-%d", time.Now().UnixNano(), i)
		var cmd *exec.Cmd
		if mode == "hook" {
			ev, _ := json.Marshal(map[string]any{"session_id": sid, "cwd": repo, "hook_event_name": "UserPromptSubmit",
				"prompt": prompt, "transcript_path": "", "permission_mode": "default"})
			cmd = exec.Command(memBin, "hook", "claude")
			cmd.Stdin = strings.NewReader(string(ev))
		} else {
			cmd = exec.Command(memBin, "context", "prompt", "--session", sid, "--text", prompt)
		}
		cmd.Env = env
		cmd.Dir = repo
		t0 := time.Now()
		out, err := cmd.Output()
		d := time.Since(t0)
		if err != nil {
			return fmt.Errorf("run %d: %v", i, err)
		}
		if strings.Contains(string(out), "memory-triggers") {
			hits++
		}
		if i >= 3 { // warm-up runs are not counted
			times = append(times, d)
			cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	sort.Slice(cpu, func(i, j int) bool { return cpu[i] < cpu[j] })
	p := func(q float64) time.Duration { return times[int(q*float64(len(times)-1))].Round(10 * time.Microsecond) }
	fmt.Printf("mode=%s observations=%d runs=%d p50=%s p90=%s min=%s max=%s cpu-p50=%s replies-with-memory=%d/%d cpus=%d %s/%s\n",
		mode, n, len(times), p(0.5), p(0.9), times[0].Round(10*time.Microsecond), times[len(times)-1].Round(10*time.Microsecond),
		cpu[len(cpu)/2].Round(10*time.Microsecond), hits, runs+3, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	return nil
}
