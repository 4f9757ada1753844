// Command bench-inject measures `mem inject` as a whole process on a
// generated database: it writes a JSON Lines memory of -sessions sessions
// and -observations observations (one summary per session) to a temporary
// folder, loads it with `mem import`, then runs `mem inject` -runs times and
// prints the median and the 90th percentile of the wall time, and the median
// CPU time (user + system, less disturbed by other load), with the machine.
//
//	go run ./scripts/bench-inject -observations 100000 -sessions 5000
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
	nObs := flag.Int("observations", 100000, "observations to generate")
	nSess := flag.Int("sessions", 5000, "sessions to generate (one summary each)")
	runs := flag.Int("runs", 50, "timed runs of each command")
	keep := flag.String("dir", "", "folder to work in (kept); default a temporary one, removed")
	flag.Parse()
	if err := run(*nObs, *nSess, *runs, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench-inject:", err)
		os.Exit(1)
	}
}

func run(nObs, nSess, runs int, dir string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "mem-bench-inject-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	bin := filepath.Join(dir, "mem")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/mem").CombinedOutput(); err != nil {
		return fmt.Errorf("building mem: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "mem.db")
	data := filepath.Join(dir, "memory.jsonl")
	if _, err := os.Stat(db); err != nil {
		if err := generate(data, nObs, nSess); err != nil {
			return err
		}
		t := time.Now()
		if out, err := command(bin, db, "import", data).CombinedOutput(); err != nil {
			return fmt.Errorf("importing: %v\n%s", err, out)
		}
		fmt.Printf("imported %d observations, %d sessions in %s\n", nObs, nSess, time.Since(t).Round(time.Millisecond))
	}
	fi, _ := os.Stat(db)
	fmt.Printf("machine: %s/%s, %d CPUs, %s; database %d MB\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), cpuModel(), fi.Size()>>20)
	for _, args := range [][]string{
		{"version"},
		{"inject", "--session", "bench-s-00042"},
		{"inject", "--session", fmt.Sprintf("bench-s-%05d", nSess-1), "--mode", "compact"},
		{"inject", "--format", "text", "--prompt", "refund retries webhook"},
	} {
		var times, cpu []time.Duration
		var size int
		for i := 0; i < runs+3; i++ {
			c := command(bin, db, args...)
			t := time.Now()
			out, err := c.Output()
			d := time.Since(t)
			if err != nil {
				return fmt.Errorf("mem %s: %v", strings.Join(args, " "), err)
			}
			if i >= 3 { // warm-up runs are not counted
				times = append(times, d)
				cpu = append(cpu, c.ProcessState.UserTime()+c.ProcessState.SystemTime())
			}
			size = len(out)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		sort.Slice(cpu, func(i, j int) bool { return cpu[i] < cpu[j] })
		fmt.Printf("mem %-52s wall p50 %6.1f ms  p90 %6.1f ms  cpu p50 %5.1f ms  (%d runs, %d bytes out)\n",
			strings.Join(args, " "), ms(times[len(times)/2]), ms(times[len(times)*9/10]), ms(cpu[len(cpu)/2]), len(times), size)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func command(bin, db string, args ...string) *exec.Cmd {
	c := exec.Command(bin, args...)
	c.Env = append(os.Environ(), "MEM_DB="+db, "MEM_PROJECT=bench/project", "NO_COLOR=1")
	return c
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

var (
	verbs   = strings.Fields("use add fix drop keep split rename cache retry validate index log guard migrate document")
	nouns   = strings.Fields("refund order payment webhook client timeout session token budget index query lock migration handler config test cache queue worker")
	adjs    = strings.Fields("partial flaky slow idempotent stale nightly concurrent typed empty large")
	types   = strings.Fields("decision problem warning refactor success discovery feature bugfix pattern solution change note")
	folders = strings.Fields("internal/orders internal/payments internal/store cmd/api web/src deploy")
)

func phrase(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		switch i % 3 {
		case 0:
			w[i] = verbs[r.IntN(len(verbs))]
		case 1:
			w[i] = adjs[r.IntN(len(adjs))]
		default:
			w[i] = nouns[r.IntN(len(nouns))]
		}
	}
	return strings.Join(w, " ")
}

func sentences(r *rand.Rand, n int) string {
	s := make([]string, n)
	for i := range s {
		p := phrase(r, 5+r.IntN(8))
		s[i] = strings.ToUpper(p[:1]) + p[1:] + "."
	}
	return strings.Join(s, " ")
}

// generate writes the memory: sessions spread over a year, most in the
// benchmarked project and some in others, each with its observations and
// a summary.
func generate(path string, nObs, nSess int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	r := rand.New(rand.NewPCG(42, 1))
	start := time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)
	step := 365 * 24 * time.Hour / time.Duration(nSess)
	obsID := 0
	for s := range nSess {
		id := fmt.Sprintf("bench-s-%05d", s)
		project := "bench/project"
		if s%5 == 4 {
			project = fmt.Sprintf("bench/other-%d", s%3)
		}
		at := start.Add(time.Duration(s) * step)
		agentType := []string{"build", "plan"}[r.IntN(2)]
		if err := enc.Encode(map[string]any{"kind": "session", "id": id, "project": project, "agent": "claude-code",
			"agent_type": agentType, "cwd": "/home/dev/" + project, "started_at": at, "last_activity_at": at.Add(time.Hour),
			"status": "ended", "prompt_count": 0, "files_read": []string{}}); err != nil {
			return err
		}
		n := nObs / nSess
		if s < nObs%nSess {
			n++
		}
		for i := range n {
			obsID++
			folder := folders[r.IntN(len(folders))]
			if err := enc.Encode(map[string]any{"kind": "observation", "uuid": fmt.Sprintf("bench-o-%08d", obsID),
				"session_id": id, "project": project, "type": types[r.IntN(len(types))],
				"title": phrase(r, 4+r.IntN(6)), "subtitle": "", "narrative": sentences(r, 1+r.IntN(4)),
				"facts": []string{phrase(r, 6)}, "concepts": []string{nouns[r.IntN(len(nouns))]},
				"files_read":     []string{folder + "/" + nouns[r.IntN(len(nouns))] + ".go"},
				"files_modified": []string{folder + "/" + nouns[r.IntN(len(nouns))] + ".go"},
				"agent_type":     agentType, "tool_name": "Edit", "prompt_number": 1 + i/5,
				"created_at": at.Add(time.Duration(i) * time.Minute)}); err != nil {
				return err
			}
		}
		if err := enc.Encode(map[string]any{"kind": "summary", "uuid": "bench-m-" + id, "session_id": id, "project": project,
			"request": sentences(r, 1), "investigated": sentences(r, 2), "learned": sentences(r, 2),
			"completed": sentences(r, 3), "next_steps": sentences(r, 1), "decisions": sentences(r, 1),
			"concepts": []string{}, "files": []string{}, "text": "", "generator": "extractive",
			"created_at": at.Add(2 * time.Hour), "covers_until": at.Add(time.Hour)}); err != nil {
			return err
		}
	}
	return w.Flush()
}
