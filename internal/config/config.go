// Package config computes mem's effective configuration: command-line flags
// over environment variables over the config file over defaults, and
// remembers where each value came from so `mem config show` can say.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/memory"
)

// Where a value came from.
const (
	SourceDefault = "default"
	SourceFile    = "file"
	SourceEnv     = "env"
	SourceFlag    = "flag"
)

// Kinds of values, used to validate them.
const (
	KindString   = "string"
	KindInt      = "int"
	KindFloat    = "float"
	KindBool     = "bool"
	KindDuration = "duration"
	KindList     = "list" // comma-separated
)

// Key describes one setting.
type Key struct {
	Name    string
	Kind    string
	Default string
	Env     string // environment variable, if any
	Help    string
}

// Setting is a key's effective value.
type Setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
	Detail string `json:"detail,omitempty"` // the file, variable or flag
}

// Config is the effective configuration.
type Config struct {
	File   string
	values map[string]Setting
	keys   map[string]Key
	// lenient: a bad number or duration is skipped (LoadLenient).
	lenient bool
	skipped error
}

// Dirs are the user folders defaults are built from.
type Dirs struct {
	Data, State, Config string
}

// UserDirs follows the XDG base directory variables, falling back to
// ~/.local/share, ~/.local/state and ~/.config.
func UserDirs(getenv func(string) string) Dirs {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	pick := func(env, fallback string) string {
		if v := getenv(env); v != "" && filepath.IsAbs(v) {
			return filepath.Join(v, "mem")
		}
		return filepath.Join(home, fallback, "mem")
	}
	return Dirs{
		Data:   pick("XDG_DATA_HOME", ".local/share"),
		State:  pick("XDG_STATE_HOME", ".local/state"),
		Config: pick("XDG_CONFIG_HOME", ".config"),
	}
}

// Keys returns every known setting with its default for these folders.
func Keys(d Dirs) []Key {
	return []Key{
		{"db", KindString, filepath.Join(d.Data, "mem.db"), "MEM_DB", "database file"},
		{"project", KindString, "", "MEM_PROJECT", "project key (default: resolved from the working directory)"},
		{"inject.enabled", KindBool, "true", "MEM_INJECT", "inject memory into agent sessions"},
		{"capture.enabled", KindBool, "true", "MEM_CAPTURE", "capture observations from agent sessions"},
		{"exclude.paths", KindList, "", "MEM_EXCLUDE", "path patterns whose projects get no injection and no capture"},
		{"inject.budget", KindInt, "2000", "", "token budget of the session-start block"},
		{"inject.compact_budget", KindInt, "1000", "", "token budget of the compaction block"},
		{"inject.max_chars", KindInt, "10000", "", "character cap of an injected block (Claude Code's cap)"},
		{"recall.half_life", KindDuration, "168h", "", "age at which recency counts half"},
		{"recall.weight.recency", KindFloat, "0.40", "", "weight of recency in relevance"},
		{"recall.weight.importance", KindFloat, "0.30", "", "weight of the observation type in relevance"},
		{"recall.weight.agent_type", KindFloat, "0.20", "", "weight of an agent-type match in relevance"},
		{"recall.weight.keyword", KindFloat, "0.10", "", "weight of keyword matches in relevance"},
		{"hook.deadline", KindDuration, "2s", "MEM_HOOK_DEADLINE", "time a hook may take before it answers with no context"},
		{"hook.log", KindString, filepath.Join(d.State, "hook.log"), "MEM_HOOK_LOG", "file hook problems are logged to"},
		{"summarize.llm_cmd", KindString, "", "MEM_LLM_CMD", "shell command that summarizes a session (JSON in, JSON out)"},
		{"summarize.timeout", KindDuration, "60s", "", "time the summarizer command may take per session"},
		{"summarize.idle", KindDuration, "2h", "", "idle time after which an open session is summarized"},
		{"context.memory_triggers", KindBool, "true", "", "prompt-time recall: symbols, paths and questions in a prompt search memory"},
		{"context.file_activity", KindBool, "true", "", "reading or editing a file brings what memory knows about it"},
		{"context.directory_agents", KindBool, "true", "", "first touch of a directory brings its AGENTS.md (up to the project root)"},
		{"context.directory_readme", KindBool, "true", "", "first touch of a directory brings its README.md (up to the project root)"},
		{"context.rules_injector", KindBool, "true", "", "rule files whose globs match a touched file (.github/instructions, .cursor/rules, .claude/rules)"},
		{"context.keyword_detector", KindBool, "true", "", "prompts containing a configured keyword get its context"},
		{"context.custom", KindBool, "true", "", "deliver entries registered by scripts with mem context add"},
		{"context.keywords", KindList, "", "", "keyword=file pairs: a prompt containing keyword gets the file's text (high priority)"},
		{"context.min_relevance", KindFloat, "0.5", "", "minimum relevance (0-1) of a prompt-time search result"},
		{"context.prompt_budget", KindInt, "800", "", "token budget of what one prompt's triggers register"},
		{"context.file_budget", KindInt, "600", "", "token budget of one AGENTS.md, README.md or rule file"},
		{"context.carry_over", KindInt, "3", "", "how many of the session's last triggers carry over to the next prompt"},
	}
}

// Range bounds a number or duration setting, both ends included; durations
// are in nanoseconds (time.Duration). A value outside is refused with the
// range, and so are NaN and infinities.
type Range struct{ Min, Max float64 }

// Ranges bounds every number and duration key of Keys.
var Ranges = map[string]Range{
	"inject.budget":            {1, 1_000_000},
	"inject.compact_budget":    {1, 1_000_000},
	"inject.max_chars":         {1, 1_000_000},
	"recall.half_life":         {float64(time.Minute), float64(10 * 365 * 24 * time.Hour)},
	"recall.weight.recency":    {0, 1},
	"recall.weight.importance": {0, 1},
	"recall.weight.agent_type": {0, 1},
	"recall.weight.keyword":    {0, 1},
	"hook.deadline":            {float64(50 * time.Millisecond), float64(time.Minute)},
	"summarize.timeout":        {float64(time.Second), float64(24 * time.Hour)},
	"summarize.idle":           {float64(time.Minute), float64(365 * 24 * time.Hour)},
	"context.min_relevance":    {0, 1},
	"context.prompt_budget":    {1, 100_000},
	"context.file_budget":      {1, 100_000},
	"context.carry_over":       {0, 100},
}

// ContextSources returns the built-in pending-context sources; each is
// switched by the bool key context.<name with - as _>.
func ContextSources() []string {
	return []string{"memory-triggers", "file-activity", "directory-agents", "directory-readme",
		"rules-injector", "keyword-detector"}
}

// Load builds the configuration. flags holds the values set on the command
// line (by key); the file is MEM_CONFIG or config.toml in the config folder.
// A bad value is an error that names the key and what it accepts.
func Load(getenv func(string) string, flags map[string]string) (*Config, error) {
	return load(getenv, flags, false)
}

// LoadLenient is Load for mem hook, which must keep working: a number or
// duration that is not one or is out of its range keeps the value it had
// (the default, or the one from a lower layer), and the first such problem
// is returned as skipped. Any other problem (an unreadable file, an unknown
// key, a bad switch) is an error as with Load.
func LoadLenient(getenv func(string) string, flags map[string]string) (c *Config, skipped, err error) {
	if c, err = load(getenv, flags, true); err != nil {
		return nil, nil, err
	}
	return c, c.skipped, nil
}

func load(getenv func(string) string, flags map[string]string, lenient bool) (*Config, error) {
	dirs := UserDirs(getenv)
	c := &Config{values: map[string]Setting{}, keys: map[string]Key{}, lenient: lenient}
	for _, k := range Keys(dirs) {
		c.keys[k.Name] = k
		c.values[k.Name] = Setting{Key: k.Name, Value: k.Default, Source: SourceDefault}
	}
	c.File = getenv("MEM_CONFIG")
	explicit := c.File != ""
	if !explicit {
		c.File = filepath.Join(dirs.Config, "config.toml")
	}
	if err := c.loadFile(explicit); err != nil {
		return nil, err
	}
	for _, k := range c.keys {
		if k.Env == "" {
			continue
		}
		if v, ok := lookup(getenv, k.Env); ok {
			if err := c.set(k.Name, v, SourceEnv, k.Env); err != nil {
				return nil, err
			}
		}
	}
	for name, v := range flags {
		if err := c.set(name, v, SourceFlag, "--"+name); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func lookup(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

// maxFileBytes bounds the config file; a real one is a few hundred bytes.
const maxFileBytes = 1 << 20

// loadFile reads a flat TOML subset: [section] headers, key = value lines
// (strings quoted or bare, numbers, booleans) and # comments. A FIFO, a
// device or a file over 1 MiB is refused before anything is read.
func (c *Config) loadFile(mustExist bool) error {
	b, err := fsafe.ReadFile(c.File, maxFileBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !mustExist {
			return nil
		}
		if errors.Is(err, fsafe.ErrNotRegular) || errors.Is(err, fsafe.ErrTooLarge) {
			return fmt.Errorf("%w: %w", memory.Invalid("config file", "a regular file of at most 1 MiB", c.File), err)
		}
		return fmt.Errorf("reading config file: %w", err)
	}
	section := ""
	for i, raw := range strings.Split(string(b), "\n") {
		n := i + 1
		line := strings.TrimSpace(stripComment(raw))
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.TrimSpace(line[1 : len(line)-1])
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return memory.Invalid(fmt.Sprintf("%s:%d", c.File, n), "key = value", line)
		}
		name := strings.TrimSpace(k)
		if section != "" {
			name = section + "." + name
		}
		if err := c.set(name, unquote(strings.TrimSpace(v)), SourceFile, fmt.Sprintf("%s:%d", c.File, n)); err != nil {
			return err
		}
	}
	return nil
}

func stripComment(s string) string {
	inQuote := false
	for i, r := range s {
		switch {
		case r == '"':
			inQuote = !inQuote
		case r == '#' && !inQuote:
			return s[:i]
		}
	}
	return s
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
		return v[1 : len(v)-1]
	}
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		// A TOML array of strings becomes a comma-separated list.
		var items []string
		for _, it := range strings.Split(v[1:len(v)-1], ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, unquote(it))
			}
		}
		return strings.Join(items, ",")
	}
	return v
}

// set validates and records a value.
func (c *Config) set(name, v, source, detail string) error {
	k, ok := c.keys[name]
	if !ok {
		// The name is quoted: a garbage file may hold control characters.
		return memory.Invalid("config key ("+detail+")", "one of "+strings.Join(c.names(), ", "), name)
	}
	if err := check(k, v); err != nil {
		bad := memory.Invalid(name+" ("+detail+")", err.Error(), v)
		if c.lenient && (k.Kind == KindInt || k.Kind == KindFloat || k.Kind == KindDuration) {
			if c.skipped == nil {
				c.skipped = bad
			}
			return nil
		}
		return bad
	}
	c.values[name] = Setting{Key: name, Value: v, Source: source, Detail: detail}
	return nil
}

func check(k Key, v string) error {
	var (
		n   float64
		err error
	)
	switch k.Kind {
	case KindInt:
		var i int
		i, err = strconv.Atoi(v)
		n = float64(i)
	case KindFloat:
		n, err = strconv.ParseFloat(v, 64)
	case KindBool:
		_, err = strconv.ParseBool(v)
	case KindDuration:
		var d time.Duration
		d, err = time.ParseDuration(v)
		n = float64(d)
	}
	r, bounded := Ranges[k.Name]
	if err == nil && (!bounded || n >= r.Min && n <= r.Max) { // NaN is in no range
		return nil
	}
	what := map[string]string{KindInt: "a whole number", KindFloat: "a number", KindBool: "true or false",
		KindDuration: "a duration such as 500ms, 2s or 168h"}[k.Kind]
	if !bounded {
		return errors.New(what)
	}
	if k.Kind == KindDuration {
		what = "a duration"
	}
	bound := func(f float64) string {
		if k.Kind != KindDuration {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		d := time.Duration(f).String()
		if strings.HasSuffix(d, "m0s") {
			d = strings.TrimSuffix(d, "0s")
		}
		if strings.HasSuffix(d, "h0m") {
			d = strings.TrimSuffix(d, "0m")
		}
		return d
	}
	return fmt.Errorf("%s from %s to %s", what, bound(r.Min), bound(r.Max))
}

func (c *Config) names() []string {
	out := make([]string, 0, len(c.keys))
	for n := range c.keys {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// All returns every setting, sorted by key.
func (c *Config) All() []Setting {
	out := make([]Setting, 0, len(c.values))
	for _, n := range c.names() {
		out = append(out, c.values[n])
	}
	return out
}

// Get returns a setting; unknown keys panic, since they are programming errors.
func (c *Config) Get(name string) Setting {
	s, ok := c.values[name]
	if !ok {
		panic("config: unknown key " + name)
	}
	return s
}

// String returns a setting's value.
func (c *Config) String(name string) string { return c.Get(name).Value }

// Int returns a whole-number setting.
func (c *Config) Int(name string) int {
	n, _ := strconv.Atoi(c.Get(name).Value)
	return n
}

// Float returns a numeric setting.
func (c *Config) Float(name string) float64 {
	f, _ := strconv.ParseFloat(c.Get(name).Value, 64)
	return f
}

// Bool returns a boolean setting.
func (c *Config) Bool(name string) bool {
	b, _ := strconv.ParseBool(c.Get(name).Value)
	return b
}

// Duration returns a duration setting.
func (c *Config) Duration(name string) time.Duration {
	d, _ := time.ParseDuration(c.Get(name).Value)
	return d
}

// List returns a comma-separated setting as its items.
func (c *Config) List(name string) []string {
	var out []string
	for _, s := range strings.Split(c.Get(name).Value, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
