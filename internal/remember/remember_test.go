package remember

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/triggers"
)

func TestNewRefusesAMissingDependency(t *testing.T) {
	cfg := &config.Config{Settings: config.Defaults(config.Dirs{Data: t.TempDir()})}
	for _, tc := range []struct {
		name string
		cfg  *config.Config
		now  func() time.Time
		want string
	}{
		{"no configuration", nil, time.Now, "no configuration"},
		{"no clock", cfg, nil, "no clock"},
		{"both", cfg, time.Now, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(tc.cfg, tc.now)
			if tc.want == "" {
				if err != nil || e == nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// A tool call's context reads no keyword file: keywords are a prompt's.
func TestFileContextReadsNoKeywordFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := &config.Config{Settings: config.Defaults(config.Dirs{Data: dir}), File: filepath.Join(dir, "config.toml")}
	cfg.Settings.Context.KeywordDetector = true
	cfg.Settings.Context.Keywords = []string{"tdd=missing.md"}
	e, err := New(cfg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(dir, "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := triggers.Session{ID: "s", Project: "p", Root: dir}
	if _, _, err := e.FileContext(ctx, db, s, []string{"a.go"}, nil, false, 0); err != nil {
		t.Fatalf("a tool call's context: %v", err)
	}
	if _, _, err := e.PromptContext(ctx, db, s, "tdd", 0); err == nil {
		t.Fatal("a prompt's context took a keyword file that is missing")
	}
}

// What a turn delivered is recorded per channel, a file history's session
// (its summary, S3) as well as an observation; what brings files, not
// memory, is not.
func TestRecordConsumedRecordsEachEntryOfMemory(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	at := time.UnixMilli(1_800_000_000_000)
	es := []memory.PendingEntry{
		{Source: triggers.SourceFiles, EntryID: "S3", Content: "file: a.go\nS3 2026-11-25: fix the loop"},
		{Source: triggers.SourceFiles, EntryID: "#9", Content: "file: a.go\n#9 change 2026-11-24: add the loop"},
		{Source: triggers.SourceMemory, EntryID: "#4", Content: "#4 decision 2026-11-20: keep the loop"},
		{Source: triggers.SourceRules, EntryID: "AGENTS.md", Content: "rules"},
	}
	if err := recordConsumed(ctx, db, triggers.Session{ID: "s", Project: "p"}, es, at); err != nil {
		t.Fatal(err)
	}
	fb, err := Feedback(ctx, db, "p", at.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, c := range fb.Channels {
		got[c.Channel] = c.Injected
	}
	if got[memory.ChannelFile] != 2 || got[memory.ChannelPrompt] != 1 || fb.Total.Injected != 3 {
		t.Errorf("injected per channel %v (total %d), want 2 file-touch, 1 prompt-time", got, fb.Total.Injected)
	}
}

// What cannot be recorded as given is still given, and the failure goes to
// the log: from a turn's consumed entries and from a session's block.
func TestUnrecordedInjectionIsLogged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := New(&config.Config{Settings: config.Defaults(config.Dirs{Data: dir})}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	e.SetLog(func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) })
	db, err := store.Open(ctx, filepath.Join(dir, "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := memory.Session{ID: "s1", Project: "p", StartedAt: time.Now()}
	if _, err := db.EnsureSession(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddObservation(ctx, memory.Observation{SessionID: "s1", Type: memory.TypeDecision,
		Title: "Retries back off exponentially", Narrative: "the cache handler retries with backoff"}); err != nil {
		t.Fatal(err)
	}
	// Recording what was given now fails in every write.
	if _, err := db.SQL().ExecContext(ctx, `DROP TABLE injections`); err != nil {
		t.Fatal(err)
	}
	var block, given string
	err = db.Write(ctx, func(tx *store.DB) error {
		if block, err = e.Block(ctx, tx, memory.Session{ID: "s2", Project: "p"}, false); err != nil {
			return err
		}
		given = e.give(ctx, tx, triggers.Session{ID: "s2", Project: "p"},
			[]memory.PendingEntry{{Source: triggers.SourceMemory, EntryID: "#1", Content: "#1 decision: retries back off"}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(block, "Retries back off exponentially") || !strings.Contains(given, "retries back off") {
		t.Fatalf("withheld: block %q, turn %q", block, given)
	}
	if len(logged) != 2 || !strings.Contains(logged[0], "recording what was injected") || !strings.Contains(logged[1], "recording what was injected") {
		t.Fatalf("logged %q, want the block's and the turn's failures to record", logged)
	}
}
