package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	s := &c.Settings
	tests := []struct {
		field         any
		value, source string
	}{
		{&s.DB, "/from/env.db", SourceEnv},
		{&s.Inject.Budget, "1500", SourceFile},
		{&s.Project, "flagged", SourceFlag},
		{&s.Hook.Deadline, "2s", SourceDefault},
		{&s.Exclude.Paths, "~/secret/*,/tmp/*", SourceFile},
	}
	for _, tt := range tests {
		o := c.Origin(tt.field)
		if o.Value != tt.value || o.Source != tt.source {
			t.Errorf("%s = %q from %s, want %q from %s", o.Key, o.Value, o.Source, tt.value, tt.source)
		}
	}
	if got := s.Exclude.Paths; len(got) != 2 || got[1] != "/tmp/*" {
		t.Errorf("exclude.paths = %q", got)
	}
	if s.Inject.Budget != 1500 || s.Hook.Deadline != 2*time.Second || s.Recall.Weight.Recency != 0.4 {
		t.Errorf("typed settings %+v", *s)
	}
}

// TestShowMatchesSettings: what mem config show lists is the typed
// settings, key by key, and a value shown reads back as itself.
func TestShowMatchesSettings(t *testing.T) {
	c, err := Load(env(map[string]string{"HOME": "/h", "MEM_HOOK_DEADLINE": "1500ms"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"hook.deadline": "1.5s", "recall.half_life": "168h", "summarize.timeout": "1m",
		"recall.weight.recency": "0.4", "inject.enabled": "true", "context.keywords": "", "context.carry_over": "3"}
	all := c.All()
	if len(all) != len(bind(&Settings{})) {
		t.Fatalf("%d settings shown, %d keys", len(all), len(bind(&Settings{})))
	}
	for _, s := range all {
		if w, ok := want[s.Key]; ok && s.Value != w {
			t.Errorf("%s shown as %q, want %q", s.Key, s.Value, w)
		}
		var back Settings
		k := bind(&back)[indexOf(t, s.Key)]
		if err := k.set(s.Value); err != nil {
			t.Errorf("%s = %q does not read back: %v", s.Key, s.Value, err)
		} else if k.Value() != s.Value {
			t.Errorf("%s reads back as %q, want %q", s.Key, k.Value(), s.Value)
		}
	}
}

func indexOf(t *testing.T, name string) int {
	for i, k := range bind(&Settings{}) {
		if k.Name == name {
			return i
		}
	}
	t.Fatalf("no key %s", name)
	return -1
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
	if got := c.Settings.DB; got != "/data/mem/mem.db" {
		t.Errorf("db default %q", got)
	}
	if got := c.Settings.Hook.Log; got != "/h/.local/state/mem/hook.log" {
		t.Errorf("hook.log default %q", got)
	}
}

// TestRanges: every number and duration has a range; a value outside it,
// NaN or an infinity is refused with the key and the range, whichever
// layer it comes from, and the bounds themselves are accepted.
func TestRanges(t *testing.T) {
	dir := t.TempDir()
	for _, k := range Keys(Dirs{}) {
		if k.numeric() {
			if k.Range == (Range{}) {
				t.Errorf("%s has no range", k.Name)
			}
			if err := k.set(k.Value()); err != nil {
				t.Errorf("%s: default %s out of its range: %v", k.Name, k.Value(), err)
			}
		} else if k.Range != (Range{}) {
			t.Errorf("%s: a range on a key that is not a number", k.Name)
		}
	}
	defaults := map[string]string{}
	for _, k := range Keys(Dirs{}) {
		defaults[k.Name] = k.Value()
	}
	tests := []struct{ key, value, want string }{
		{"inject.budget", "-1", "inject.budget (file:1): must be a whole number from 1 to 1000000"},
		{"inject.budget", "0", "from 1 to 1000000"},
		{"inject.budget", "1000001", "from 1 to 1000000"},
		{"inject.max_chars", "99999999999999999999", "a whole number from 1 to 1000000"},
		{"recall.half_life", `"-1h"`, "recall.half_life (file:1): must be a duration from 1m to 87600h"},
		{"recall.half_life", "0s", "from 1m to 87600h"},
		{"recall.weight.recency", "nan", "recall.weight.recency (file:1): must be a number from 0 to 1"},
		{"recall.weight.keyword", "inf", "from 0 to 1"},
		{"recall.weight.keyword", "-0.1", "from 0 to 1"},
		{"context.min_relevance", "7", "context.min_relevance (file:1): must be a number from 0 to 1"},
		{"context.prompt_budget", "-5", "context.prompt_budget (file:1): must be a whole number from 1 to 100000"},
		{"context.carry_over", "101", "from 0 to 100"},
		{"hook.deadline", "1ms", "hook.deadline (file:1): must be a duration from 50ms to 4s"},
		{"summarize.timeout", "0s", "from 1s to 24h"},
		{"summarize.idle", "-2h", "from 1m to 8760h"},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			file := filepath.Join(dir, "file")
			os.WriteFile(file, []byte(tt.key+" = "+tt.value+"\n"), 0o644)
			_, err := Load(env(map[string]string{"HOME": dir, "MEM_CONFIG": file}), nil)
			if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), file, "file"), tt.want) {
				t.Fatalf("err %v; want it to say %q", err, tt.want)
			}
			// The hook keeps the default and reports the value it skipped.
			c, skipped, err := LoadLenient(env(map[string]string{"HOME": dir, "MEM_CONFIG": file}), nil)
			if err != nil || skipped == nil || !strings.Contains(skipped.Error(), tt.key) {
				t.Fatalf("lenient: skipped %v, err %v", skipped, err)
			}
			k, _ := c.key(tt.key)
			if s := c.Origin(k.Field); s.Source != SourceDefault || s.Value != defaults[tt.key] {
				t.Errorf("lenient: %s = %q from %s, want the default %q", tt.key, s.Value, s.Source, defaults[tt.key])
			}
		})
	}
	for _, ok := range []struct{ key, value string }{
		{"inject.budget", "1"}, {"inject.budget", "1000000"}, {"recall.weight.recency", "0"},
		{"recall.weight.recency", "1"}, {"hook.deadline", "50ms"}, {"hook.deadline", "4s"},
		{"recall.half_life", "87600h"}, {"context.carry_over", "0"},
	} {
		file := filepath.Join(dir, "ok")
		os.WriteFile(file, []byte(ok.key+" = "+ok.value+"\n"), 0o644)
		if _, err := Load(env(map[string]string{"HOME": dir, "MEM_CONFIG": file}), nil); err != nil {
			t.Errorf("%s = %s refused: %v", ok.key, ok.value, err)
		}
	}
	// From the environment too.
	if _, err := Load(env(map[string]string{"HOME": dir, "MEM_HOOK_DEADLINE": "-1s"}), nil); err == nil ||
		!strings.Contains(err.Error(), "hook.deadline (MEM_HOOK_DEADLINE): must be a duration from 50ms to 4s") {
		t.Errorf("MEM_HOOK_DEADLINE=-1s: %v", err)
	}
}

// TestLenientKeepsSwitchesStrict: a hook skips a bad number, but a bad
// switch or an unknown key still stops it, so a typo never turns capture on.
func TestLenientKeepsSwitchesStrict(t *testing.T) {
	dir := t.TempDir()
	for _, body := range []string{"[capture]\nenabled = nope", "colour = 1", "db"} {
		file := filepath.Join(dir, "c.toml")
		os.WriteFile(file, []byte(body), 0o644)
		if _, _, err := LoadLenient(env(map[string]string{"HOME": dir, "MEM_CONFIG": file}), nil); err == nil {
			t.Errorf("%q accepted", body)
		}
	}
}

// TestGarbageIsOneLine: control characters and line separators in a garbage
// file never reach the message unquoted.
func TestGarbageIsOneLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.toml")
	os.WriteFile(file, []byte("a\vb\fc\u0085d\u2028e\r = 1\n"), 0o644)
	_, err := Load(env(map[string]string{"HOME": dir, "MEM_CONFIG": file}), nil)
	if err == nil || strings.ContainsAny(err.Error(), "\v\f\r\n\u0085\u2028") {
		t.Fatalf("err %q", err)
	}
}
