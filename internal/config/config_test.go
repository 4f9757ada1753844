package config

import (
	"os"
	"path/filepath"
	"testing"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	os.WriteFile(file, []byte(`# mem settings
db = "/from/file.db"
[inject]
budget = 1500 # tokens
[exclude]
paths = ["~/secret/*", "/tmp/*"]
`), 0o644)
	c, err := Load(env(map[string]string{"HOME": dir, "MEM_CONFIG": file, "MEM_DB": "/from/env.db"}),
		map[string]string{"project": "flagged"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ key, value, source string }{
		{"db", "/from/env.db", SourceEnv},
		{"inject.budget", "1500", SourceFile},
		{"project", "flagged", SourceFlag},
		{"hook.deadline", "2s", SourceDefault},
		{"exclude.paths", "~/secret/*,/tmp/*", SourceFile},
	}
	for _, tt := range tests {
		s := c.Get(tt.key)
		if s.Value != tt.value || s.Source != tt.source {
			t.Errorf("%s = %q from %s, want %q from %s", tt.key, s.Value, s.Source, tt.value, tt.source)
		}
	}
	if got := c.List("exclude.paths"); len(got) != 2 || got[1] != "/tmp/*" {
		t.Errorf("List = %q", got)
	}
	if c.Int("inject.budget") != 1500 {
		t.Error("Int")
	}
}

func TestBadValues(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, file string }{
		{"unknown key", "colour = 1"},
		{"bad int", "[inject]\nbudget = lots"},
		{"bad duration", "[hook]\ndeadline = soon"},
		{"no equals", "db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, tt.name+".toml")
			os.WriteFile(file, []byte(tt.file), 0o644)
			if _, err := Load(env(map[string]string{"HOME": dir, "MEM_CONFIG": file}), nil); err == nil {
				t.Fatal("accepted a bad config")
			}
		})
	}
}

func TestDefaultsFollowXDG(t *testing.T) {
	c, err := Load(env(map[string]string{"HOME": "/h", "XDG_DATA_HOME": "/data"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.String("db"); got != "/data/mem/mem.db" {
		t.Errorf("db default %q", got)
	}
	if got := c.String("hook.log"); got != "/h/.local/state/mem/hook.log" {
		t.Errorf("hook.log default %q", got)
	}
}
