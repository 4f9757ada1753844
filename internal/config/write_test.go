package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/memory"
)

func TestUpdateKeepsOtherLines(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		changes []Change
		want    string
	}{
		{"new file", "", []Change{{"sync.url", "http://a:1"}},
			"[sync]\nurl = \"http://a:1\"\n"},
		{"new section after others", "[inject]\nbudget = 1500 # mine\n",
			[]Change{{"sync.url", "http://a:1"}, {"sync.user", "team"}},
			"[inject]\nbudget = 1500 # mine\n\n[sync]\nurl = \"http://a:1\"\nuser = \"team\"\n"},
		{"replace in place", "[sync]\nurl = \"http://old:1\"\nuser = \"team\"\n[inject]\nbudget = 9\n",
			[]Change{{"sync.url", "http://new:1,http://new:2"}},
			"[sync]\nurl = \"http://new:1,http://new:2\"\nuser = \"team\"\n[inject]\nbudget = 9\n"},
		{"add to existing section", "[sync]\nurl = \"http://a:1\"\n\n[inject]\nbudget = 9\n",
			[]Change{{"sync.password", "p w"}},
			"[sync]\nurl = \"http://a:1\"\npassword = \"p w\"\n\n[inject]\nbudget = 9\n"},
		{"remove", "[sync]\nurl = \"http://a:1\"\nuser = \"team\"\n",
			[]Change{{"sync.user", ""}},
			"[sync]\nurl = \"http://a:1\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.toml")
			if tt.file != "" {
				if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"HOME": dir, "MEM_CONFIG": path}
			c, err := LoadForWrite(func(k string) string { return env[k] }, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Update(tt.changes); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.want {
				t.Errorf("file:\n%s\nwant:\n%s", got, tt.want)
			}
			// What was written reads back.
			c2, err := Load(func(k string) string { return env[k] }, nil)
			if err != nil {
				t.Fatalf("reading back: %v", err)
			}
			for _, ch := range tt.changes {
				k, _ := c2.key(ch.Key)
				if ch.Value != "" && k.Value() != ch.Value {
					t.Errorf("%s reads back as %q, want %q", ch.Key, k.Value(), ch.Value)
				}
			}
			if fi, err := os.Stat(path); err == nil && tt.file == "" && fi.Mode().Perm() != 0o600 {
				t.Errorf("new config file mode %v, want 0600", fi.Mode().Perm())
			}
		})
	}
}

func TestUpdateRefusesAndWritesNothing(t *testing.T) {
	for _, ch := range []Change{{"sync.nope", "x"}, {"sync.timeout", "1ns"}, {"sync.password", "a\"b"}} {
		dir := t.TempDir()
		path := filepath.Join(dir, "config.toml")
		env := map[string]string{"HOME": dir, "MEM_CONFIG": path}
		c, err := LoadForWrite(func(k string) string { return env[k] }, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Update([]Change{{"sync.url", "http://a:1"}, ch})
		if !memory.IsInvalid(err) {
			t.Errorf("%s=%q: %v, want a refusal", ch.Key, ch.Value, err)
		}
		if strings.Contains(err.Error(), "a\"b") {
			t.Errorf("the refusal shows the password: %v", err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: a file was written", ch.Key)
		}
	}
}

func TestPasswordIsNeverShown(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir(), "MEM_SYNC_PASSWORD": "hunter2-secret"}
	c, err := Load(func(k string) string { return env[k] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Settings.Sync.Password != "hunter2-secret" {
		t.Fatalf("password not read from the environment")
	}
	for _, s := range c.All() {
		if strings.Contains(s.Value, "hunter2") {
			t.Errorf("%s shows the password", s.Key)
		}
		if s.Key == "sync.password" && s.Value != Hidden {
			t.Errorf("sync.password shows %q, want %q", s.Value, Hidden)
		}
	}
}
