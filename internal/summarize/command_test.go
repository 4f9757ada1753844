package summarize

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// fakeStore is an in-memory Queue.
type fakeStore struct {
	sessions  map[string]Input
	summaries map[string]memory.Summary
	pending   []Pending
	holder    string
	until     time.Time
	putErr    error
}

// Summarize summarizes a session of the fake as Session does.
func (f *fakeStore) Summarize(ctx context.Context, id string, opts Options) (Result, error) {
	return Session(ctx, f, id, opts)
}

func newFakeStore(inputs ...Input) *fakeStore {
	f := &fakeStore{sessions: map[string]Input{}, summaries: map[string]memory.Summary{}}
	for _, in := range inputs {
		f.sessions[in.Session.ID] = in
		f.pending = append(f.pending, Pending{ID: in.Session.ID, Reason: "ended"})
	}
	return f
}

func (f *fakeStore) Session(_ context.Context, id string) (memory.Session, error) {
	in, ok := f.sessions[id]
	if !ok {
		return memory.Session{}, memory.ErrNotFound
	}
	return in.Session, nil
}
func (f *fakeStore) Prompts(_ context.Context, id string) ([]memory.Prompt, error) {
	return f.sessions[id].Prompts, nil
}
func (f *fakeStore) SessionTimeline(_ context.Context, id string) ([]memory.Observation, error) {
	return f.sessions[id].Observations, nil
}
func (f *fakeStore) PutSummary(_ context.Context, s memory.Summary) (memory.Summary, error) {
	if f.putErr != nil {
		return memory.Summary{}, f.putErr
	}
	f.summaries[s.SessionID] = s
	return s, nil
}
func (f *fakeStore) Pending(_ context.Context, _ time.Time, _ bool, limit int) ([]Pending, error) {
	var out []Pending
	for _, p := range f.pending {
		if _, done := f.summaries[p.ID]; !done {
			out = append(out, p)
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
func (f *fakeStore) AcquireLease(_ context.Context, _, holder, replace string, now time.Time, ttl time.Duration) (string, time.Time, error) {
	if f.holder == "" || !now.Before(f.until) || f.holder == holder || (replace != "" && f.holder == replace) {
		f.holder, f.until = holder, now.Add(ttl)
	}
	return f.holder, f.until, nil
}
func (f *fakeStore) ReleaseLease(_ context.Context, _, holder string) error {
	if f.holder == holder {
		f.holder = ""
	}
	return nil
}

func TestCommandFallback(t *testing.T) {
	in := loadInput(t, "debugging")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.sh")
	os.WriteFile(good, []byte(strings.ReplaceAll(`#!/bin/sh
cat > "$(dirname "$0")/stdin.json"
echo 'Here is the summary:'
echo 'FENCEjson'
echo '{"request":"Find why refunds retry 4 times","completed":["Fixed the retry bound","Added a test"],"text":"The retry loop stopped one attempt early; fixed with <= and a regression test.","concepts":"retries, refunds"}'
echo 'FENCE'
`, "FENCE", "```")), 0o755)
	for _, tc := range []struct {
		name, cmd    string
		timeout      time.Duration
		wantFallback string // substring; empty for success
	}{
		{"answers", "sh " + good, 0, ""},
		{"times out", "sleep 30", 300 * time.Millisecond, "timed out after 300ms"},
		{"child keeps stdout open", "sleep 30 & sleep 30; wait", 300 * time.Millisecond, "timed out"},
		{"exits non-zero", "echo 'model not found' >&2; exit 3", 0, "exit status 3: model not found"},
		{"prints junk", "echo 'I am sorry, I cannot help with that.'", 0, "printed no JSON object"},
		{"prints broken JSON", `echo '{"text": "unterminated'`, 0, "printed no JSON object"},
		{"prints wrong types", `echo '{"text": 42}'`, 0, "invalid summary JSON"},
		{"prints an empty summary", `echo '{"files": ["a.go"]}'`, 0, "no text, request or completed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Command{Cmd: tc.cmd, Timeout: tc.timeout}
			src := newFakeStore(in)
			start := time.Now()
			res, err := Session(context.Background(), src, in.Session.ID, Options{Summarizer: c, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("took %v: the timeout did not stop the command", time.Since(start))
			}
			stored := src.summaries[in.Session.ID]
			if tc.wantFallback == "" {
				if res.Fallback != "" {
					t.Fatalf("unexpected fallback: %s", res.Fallback)
				}
				if stored.Generator != "llm:sh" || stored.Request != "Find why refunds retry 4 times" ||
					stored.Completed != "Fixed the retry bound; Added a test" {
					t.Fatalf("stored %+v", stored)
				}
				if strings.Join(stored.Concepts, ",") != "retries,refunds" || len(stored.Files) == 0 {
					t.Fatalf("lists: concepts %v files %v", stored.Concepts, stored.Files)
				}
				var sent CommandInput
				b, _ := os.ReadFile(filepath.Join(dir, "stdin.json"))
				if err := json.Unmarshal(b, &sent); err != nil {
					t.Fatalf("command got %q: %v", b, err)
				}
				if sent.Session.ID != in.Session.ID || len(sent.Observations) != len(in.Observations) || sent.Instructions == "" {
					t.Fatalf("command got %+v", sent)
				}
				return
			}
			if !strings.Contains(res.Fallback, tc.wantFallback) || !strings.Contains(res.Fallback, "used the extractive summary") {
				t.Fatalf("fallback %q, want it to mention %q", res.Fallback, tc.wantFallback)
			}
			if stored.Generator != "extractive" || stored.Text == "" {
				t.Fatalf("fallback stored %+v", stored)
			}
		})
	}
}

func TestCommandInputRedacts(t *testing.T) {
	in := Input{Session: memory.Session{ID: "s", LastMessage: "set api_key=hunter2hunter2 in the env"},
		Prompts:      []memory.Prompt{{Text: "use token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}},
		Observations: []memory.Observation{{Type: memory.TypeNote, Title: "password: swordfish"}}}
	b, _ := json.Marshal(Command{Cmd: "x"}.Input(in))
	for _, secret := range []string{"hunter2", "ghp_abc", "swordfish"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("input sent to the model contains %q: %s", secret, b)
		}
	}
}

func TestSessionUnknown(t *testing.T) {
	_, err := Session(context.Background(), newFakeStore(), "nope", Options{})
	if !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("err %v, want ErrNotFound", err)
	}
}

func TestJobLease(t *testing.T) {
	ctx := context.Background()
	src := newFakeStore(loadInput(t, "refactor"), loadInput(t, "debugging"), loadInput(t, "reads"))
	now := fixedNow()
	src.holder, src.until = "otherhost:42", now.Add(time.Minute)
	job := Job{Queue: src, Options: Options{Now: fixedNow}, Holder: "me:1", Alive: func(string) bool { return true }}
	rep, err := job.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.LeaseHolder != "otherhost:42" || !rep.LeaseUntil.Equal(now.Add(time.Minute)) || len(src.summaries) != 0 {
		t.Fatalf("held lease: report %+v, %d summaries written", rep, len(src.summaries))
	}

	// The holder died: its lease is taken over, and released at the end.
	job.Alive = func(h string) bool { return h != "otherhost:42" }
	var events []Event
	job.Progress = func(e Event) { events = append(events, e) }
	job.Limit = 2
	rep, err = job.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.LeaseHolder != "" || rep.Summarized != 2 || rep.Pending != 2 || len(events) != 2 || events[1].Done != 2 {
		t.Fatalf("report %+v, events %+v", rep, events)
	}
	if src.holder != "" {
		t.Fatalf("lease still held by %q after the run", src.holder)
	}
	// Idempotent: the rest, then nothing.
	if rep, _ = job.Run(ctx); rep.Summarized != 1 {
		t.Fatalf("second run summarized %d, want 1", rep.Summarized)
	}
	if rep, _ = job.Run(ctx); rep.Summarized != 0 || rep.Pending != 0 {
		t.Fatalf("third run: %+v", rep)
	}

	// A store error stops the run with that error.
	src2 := newFakeStore(loadInput(t, "refactor"))
	src2.putErr = errors.New("database is locked")
	if _, err := (Job{Queue: src2, Holder: "me:1"}).Run(ctx); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("err %v, want the store error", err)
	}
}

func TestHolderAlive(t *testing.T) {
	host, _ := os.Hostname()
	if !HolderAlive(LocalHolder()) {
		t.Error("this process is not alive")
	}
	if HolderAlive(host + ":999999999") {
		t.Error("a missing process of this host is alive")
	}
	if !HolderAlive("elsewhere.example:1") || !HolderAlive("garbage") {
		t.Error("a holder of another host must count as alive")
	}
}

// A long run renews its lease as it goes, and stops if another run took it.
func TestJobRenewsLease(t *testing.T) {
	ctx := context.Background()
	src := newFakeStore(loadInput(t, "refactor"), loadInput(t, "debugging"), loadInput(t, "reads"))
	clock := fixedNow()
	tick := func() time.Time { clock = clock.Add(4 * time.Minute); return clock }
	var untils []time.Time
	job := Job{Queue: src, Options: Options{Now: tick}, Holder: "me:1", LeaseTTL: 10 * time.Minute,
		Progress: func(Event) { untils = append(untils, src.until) }}
	if _, err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(untils) != 3 || !untils[2].After(untils[0]) {
		t.Fatalf("lease expiries seen during the run: %v; want it renewed", untils)
	}

	src = newFakeStore(loadInput(t, "refactor"), loadInput(t, "debugging"))
	job.Queue = src
	job.Progress = func(Event) { src.holder, src.until = "thief:2", clock.Add(time.Hour) }
	_, err := job.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "lost the summarize lease to thief:2") {
		t.Fatalf("err %v, want the lost lease", err)
	}
}
