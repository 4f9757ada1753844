package remember

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/config"
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
