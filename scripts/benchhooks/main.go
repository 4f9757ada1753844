// Command benchhooks measures `mem hook` as whole processes, the way editors
// run it: a SessionStart (which answers with the recall block) and a
// PostToolUse capture, on a database holding many observations.
//
//	go build -o /tmp/mem ./cmd/mem && go run ./scripts/benchhooks -bin /tmp/mem -observations 100000
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "mem", "the mem binary")
	n := flag.Int("n", 200, "runs per event")
	obs := flag.Int("observations", 100000, "observations in the database")
	dir := flag.String("dir", "", "work folder (default: a temporary one, removed after)")
	flag.Parse()
	if err := run(*bin, *n, *obs, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "benchhooks:", err)
		os.Exit(1)
	}
}

const project = "bench/shop-api"

func run(bin string, n, observations int, dir string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "mem-benchhooks-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	db := filepath.Join(dir, "mem.db")
	env := append(os.Environ(), "MEM_DB="+db, "MEM_PROJECT="+project, "MEM_HOOK_LOG="+filepath.Join(dir, "hook.log"),
		"HOME="+dir, "CLAUDE_PROJECT_DIR="+dir)
	fmt.Printf("machine: %s, %d cores, %s/%s\n", cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	start := time.Now()
	if err := seed(bin, env, dir, observations); err != nil {
		return err
	}
	fmt.Printf("seeded %d observations in %s\n", observations, time.Since(start).Round(time.Millisecond))
	events := []struct{ name, json string }{
		{"SessionStart (startup, recall block)", `{"session_id":"bench-{i}","cwd":"` + dir + `","hook_event_name":"SessionStart","source":"startup"}`},
		{"PostToolUse Edit (capture)", `{"session_id":"bench-cap","cwd":"` + dir + `","hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"` + dir + `/internal/f{i}.go","old_string":"x := {i}","new_string":"x := {i} + 1"}}`},
		{"PostToolUse Bash failure (capture)", `{"session_id":"bench-cap","cwd":"` + dir + `","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./pkg{i}/..."},"tool_response":{"stdout":"--- FAIL: TestX (0.00s)\n    x_test.go:{i}: boom\nFAIL\n","stderr":""}}`},
		{"UserPromptSubmit", `{"session_id":"bench-cap","cwd":"` + dir + `","hook_event_name":"UserPromptSubmit","prompt":"prompt {i} about refunds"}`},
	}
	for _, ev := range events {
		var times []time.Duration
		var replyBytes int
		for i := 0; i < n; i++ {
			cmd := exec.Command(bin, "hook", "claude")
			cmd.Env = env
			cmd.Stdin = strings.NewReader(strings.ReplaceAll(ev.json, "{i}", fmt.Sprint(i)))
			t0 := time.Now()
			out, err := cmd.Output()
			times = append(times, time.Since(t0))
			if err != nil {
				return fmt.Errorf("%s: %w", ev.name, err)
			}
			if len(out) > 0 && !json.Valid(out) {
				return fmt.Errorf("%s: invalid reply %q", ev.name, out)
			}
			replyBytes = len(out)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		fmt.Printf("%-38s n=%d  p50 %6.1f ms  p90 %6.1f ms  max %6.1f ms  reply %d bytes\n", ev.name, n,
			ms(times[len(times)/2]), ms(times[len(times)*9/10]), ms(times[len(times)-1]), replyBytes)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "hook.log")); err == nil && len(b) > 0 {
		fmt.Printf("hook.log:\n%s", b)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// seed imports sessions of 100 observations each, with a summary per session.
func seed(bin string, env []string, dir string, observations int) error {
	path := filepath.Join(dir, "seed.jsonl")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	types := []string{"decision", "problem", "change", "discovery", "success", "note", "feature", "bugfix"}
	words := []string{"refund", "retry", "gateway", "order", "cache", "ttl", "payment", "idempotency", "catalog", "invoice", "webhook", "queue"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	id := 0
	for s := 0; id < observations; s++ {
		sid := fmt.Sprintf("seed-%05d", s)
		at := base.Add(time.Duration(s) * time.Hour)
		enc.Encode(map[string]any{"kind": "session", "id": sid, "project": project, "agent": "claude-code", "agent_type": "build",
			"cwd": dir, "started_at": at, "last_activity_at": at.Add(50 * time.Minute), "ended_at": at.Add(time.Hour),
			"prompt_count": 1, "status": "ended", "files_read": []string{}})
		for k := 0; k < 100 && id < observations; k++ {
			id++
			w1, w2 := words[id%len(words)], words[(id/7)%len(words)]
			enc.Encode(map[string]any{"kind": "observation", "id": id, "uuid": fmt.Sprintf("00000000-0000-4000-8000-%012d", id),
				"session_id": sid, "project": project, "type": types[id%len(types)],
				"title":     fmt.Sprintf("%s %s handling in internal/%s/%s.go (#%d)", w1, w2, w1, w2, id),
				"narrative": fmt.Sprintf("While working on the %s path we found that %s needs %s; changed internal/%s/%s.go accordingly.", w1, w2, w1, w1, w2),
				"facts":     []string{w1 + " depends on " + w2}, "concepts": []string{w1, w2},
				"files_read": []string{}, "files_modified": []string{fmt.Sprintf("internal/%s/%s.go", w1, w2)},
				"agent_type": "build", "tool_name": "Edit", "prompt_number": 1, "created_at": at.Add(time.Duration(k) * 30 * time.Second)})
		}
		enc.Encode(map[string]any{"kind": "summary", "uuid": fmt.Sprintf("10000000-0000-4000-8000-%012d", s), "session_id": sid,
			"project": project, "request": "work on " + words[s%len(words)], "completed": "changed " + words[(s+1)%len(words)],
			"text": "Worked on " + words[s%len(words)] + " and " + words[(s+3)%len(words)] + ".", "generator": "extractive",
			"created_at": at.Add(time.Hour), "covers_until": at.Add(time.Hour)})
	}
	if err := w.Flush(); err != nil {
		return err
	}
	f.Close()
	cmd := exec.Command(bin, "import", path)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("importing the seed: %v: %s", err, out)
	}
	return nil
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if _, v, ok := strings.Cut(l, ":"); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return "unknown CPU"
}
