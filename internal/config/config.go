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
	"runtime"
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

// Setting is a key's effective value.
type Setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
	Detail string `json:"detail,omitempty"` // the file, variable or flag
}

// From says where the value comes from: the source, then the file,
// variable or flag when there is one ("env MEM_DB").
func (s Setting) From() string {
	if s.Detail != "" {
		return s.Source + " " + s.Detail
	}
	return s.Source
}

// Config is the effective configuration.
type Config struct {
	File     string
	Settings Settings
	keys     []Key // bound to Settings
	from     map[string]Setting
	// lenient: a bad number or duration is skipped (LoadLenient).
	lenient bool
	skipped error
}

// Dirs are the user folders defaults are built from.
type Dirs struct {
	Data, State, Config string
}

// UserDirs returns mem's folders for this OS; DirsFor says which.
func UserDirs(getenv func(string) string) Dirs {
	return DirsFor(runtime.GOOS, getenv, func(dir string) bool {
		fi, err := os.Stat(dir)
		return err == nil && fi.IsDir()
	})
}

// DirsFor returns mem's folders on goos. An absolute XDG_DATA_HOME,
// XDG_STATE_HOME or XDG_CONFIG_HOME is followed on every OS. Otherwise:
//
//	linux, BSDs  ~/.local/share/mem, ~/.local/state/mem, ~/.config/mem
//	darwin       ~/Library/Application Support/mem (data and config),
//	             ~/Library/Logs/mem (state: the logs)
//	windows      %LOCALAPPDATA%\mem (data), %LOCALAPPDATA%\mem\logs (state),
//	             %APPDATA%\mem (config)
//
// On darwin a folder an earlier mem made at the XDG place (~/.local/share/mem,
// ~/.config/mem), as exists tells, stays in use, so its database is not left
// behind.
func DirsFor(goos string, getenv func(string) string, exists func(string) bool) Dirs {
	home := HomeFor(goos, getenv)
	xdg := func(env, fallback string) (string, bool) {
		if v := getenv(env); absFor(goos, v) {
			return filepath.Join(v, "mem"), true
		}
		return filepath.Join(home, fallback, "mem"), false
	}
	data, dataSet := xdg("XDG_DATA_HOME", filepath.Join(".local", "share"))
	state, stateSet := xdg("XDG_STATE_HOME", filepath.Join(".local", "state"))
	conf, confSet := xdg("XDG_CONFIG_HOME", ".config")
	switch goos {
	case "darwin":
		support := filepath.Join(home, "Library", "Application Support", "mem")
		if !dataSet && !exists(data) {
			data = support
		}
		if !stateSet && !exists(state) {
			state = filepath.Join(home, "Library", "Logs", "mem")
		}
		if !confSet && !exists(conf) {
			conf = support
		}
	case "windows":
		local := getenv("LOCALAPPDATA")
		if !absFor(goos, local) {
			local = filepath.Join(home, "AppData", "Local")
		}
		roaming := getenv("APPDATA")
		if !absFor(goos, roaming) {
			roaming = filepath.Join(home, "AppData", "Roaming")
		}
		if !dataSet {
			data = filepath.Join(local, "mem")
		}
		if !stateSet {
			state = filepath.Join(local, "mem", "logs")
		}
		if !confSet {
			conf = filepath.Join(roaming, "mem")
		}
	}
	return Dirs{Data: data, State: state, Config: conf}
}

// absFor tells an absolute path by the rules of goos, on any OS.
func absFor(goos, p string) bool {
	if goos == "windows" {
		return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
	}
	return strings.HasPrefix(p, "/")
}

// HomeFor returns the user's home folder on goos: HOME (on windows
// USERPROFILE first), else what the OS says for this process.
func HomeFor(goos string, getenv func(string) string) string {
	if goos == "windows" {
		if h := getenv("USERPROFILE"); h != "" {
			return h
		}
	}
	if h := getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Settings is the typed configuration. Defaults writes its default values;
// bind gives each field its file key, environment variable, help and range.
type Settings struct {
	DB        string // db
	Project   string // project
	Inject    Inject
	Capture   Capture
	Exclude   Exclude
	Recall    Recall
	Hook      Hook
	Summarize Summarize
	Context   Context
	Sync      Sync
	Web       Web
	Retention Retention
}

// Retention is the [retention] section: how long the nightly job keeps an
// observation of each type that no summary quotes (0: for ever).
type Retention struct {
	Decision  time.Duration
	Problem   time.Duration
	Warning   time.Duration
	Refactor  time.Duration
	Success   time.Duration
	Discovery time.Duration
	Feature   time.Duration
	Bugfix    time.Duration
	Pattern   time.Duration
	Solution  time.Duration
	Change    time.Duration
	Note      time.Duration
}

// For returns the retention of an observation type ("" or unknown: 0).
func (r Retention) For(typ string) time.Duration {
	switch typ {
	case "decision":
		return r.Decision
	case "problem":
		return r.Problem
	case "warning":
		return r.Warning
	case "refactor":
		return r.Refactor
	case "success":
		return r.Success
	case "discovery":
		return r.Discovery
	case "feature":
		return r.Feature
	case "bugfix":
		return r.Bugfix
	case "pattern":
		return r.Pattern
	case "solution":
		return r.Solution
	case "change":
		return r.Change
	case "note":
		return r.Note
	}
	return 0
}

// Inject is the [inject] section.
type Inject struct {
	Enabled       bool
	Budget        int // tokens of the session-start block
	CompactBudget int // tokens of the compaction block
	MaxChars      int // bytes of an injected block
}

// Capture is the [capture] section.
type Capture struct{ Enabled bool }

// Exclude is the [exclude] section.
type Exclude struct{ Paths []string }

// Recall is the [recall] section.
type Recall struct {
	HalfLife time.Duration
	Weight   Weights
}

// Weights are the weights of the relevance factors (recall.weight.*).
type Weights struct {
	Recency    float64 `json:"recency"`
	Importance float64 `json:"importance"`
	AgentType  float64 `json:"agent_type"`
	Keyword    float64 `json:"keyword"`
}

// Hook is the [hook] section.
type Hook struct {
	Deadline time.Duration
	Log      string
}

// Summarize is the [summarize] section.
type Summarize struct {
	LLMCmd  string
	Timeout time.Duration
	Idle    time.Duration
}

// Sync is the [sync] section: the team's rqlite cluster (internal/team).
type Sync struct {
	URL          []string // node addresses, tried in turn
	User         string
	Password     string // never shown: see Secret
	CAFile       string
	Timeout      time.Duration // one request to the cluster
	Deadline     time.Duration // a background sync (after a session, nightly)
	AfterSession bool          // sync in the background when a session ends
	Page         int           // records a pull reads at once
	ShareMachine bool          // the host name and the sessions' folders go to the team
	Review       string        // off, flagged or all: pulled records held for mem review (team.Review*)
}

// Web is the [web] section: mem web's address and where its token is kept.
type Web struct {
	Addr      string // host:port; the default port falls back to a free one when taken
	TokenFile string // 0600 file holding the viewer's token across restarts
}

// DefaultWebAddr is mem web's address unless [web] addr says otherwise.
const DefaultWebAddr = "127.0.0.1:7411"

// Context is the [context] section: the switches of the pending-context
// sources and their limits.
type Context struct {
	MemoryTriggers  bool
	FileActivity    bool
	DirectoryAgents bool
	DirectoryReadme bool
	RulesInjector   bool
	KeywordDetector bool
	Custom          bool     // entries registered by scripts
	Keywords        []string // keyword=file pairs
	MinRelevance    float64
	PromptBudget    int
	FileBudget      int
	CarryOver       int
}

// Defaults returns the default settings for these folders. It is the one
// place defaults are written.
func Defaults(d Dirs) Settings {
	return Settings{
		DB:      filepath.Join(d.Data, "mem.db"),
		Inject:  Inject{Enabled: true, Budget: 2000, CompactBudget: 1000, MaxChars: 10000},
		Capture: Capture{Enabled: true},
		Recall: Recall{HalfLife: 168 * time.Hour,
			Weight: Weights{Recency: 0.40, Importance: 0.30, AgentType: 0.20, Keyword: 0.10}},
		Hook:      Hook{Deadline: 2 * time.Second, Log: filepath.Join(d.State, "hook.log")},
		Summarize: Summarize{Timeout: 60 * time.Second, Idle: 2 * time.Hour},
		Web:       Web{Addr: DefaultWebAddr, TokenFile: filepath.Join(d.State, "web.token")},
		Sync:      Sync{Timeout: 10 * time.Second, Deadline: 2 * time.Minute, AfterSession: true, Page: 10000, ShareMachine: false, Review: "flagged"},
		Retention: Retention{Change: 90 * 24 * time.Hour, Note: 90 * 24 * time.Hour},
		Context: Context{MemoryTriggers: true, FileActivity: true, DirectoryAgents: true, DirectoryReadme: true,
			RulesInjector: true, KeywordDetector: true, Custom: true,
			MinRelevance: 0.35, PromptBudget: 800, FileBudget: 600, CarryOver: 3},
	}
}

// Key describes one setting: its name in the file ([section] name), its
// environment variable if any, and the field it sets.
type Key struct {
	Name  string
	Env   string
	Help  string
	Field any   // *string, *[]string (comma-separated), *bool, *int, *float64 or *time.Duration
	Range Range // every number and duration has one
}

// Range bounds a number or duration, both ends included; durations are in
// nanoseconds (time.Duration). A value outside is refused with the range,
// and so are NaN and infinities.
type Range struct{ Min, Max float64 }

func span(min, max time.Duration) Range { return Range{float64(min), float64(max)} }

// bind returns every key, bound to the fields of s.
func bind(s *Settings) []Key {
	const year = 365 * 24 * time.Hour
	c := &s.Context
	return []Key{
		{"db", "MEM_DB", "database file", &s.DB, Range{}},
		{"project", "MEM_PROJECT", "project key (default: resolved from the working directory)", &s.Project, Range{}},
		{"inject.enabled", "MEM_INJECT", "inject memory into agent sessions", &s.Inject.Enabled, Range{}},
		{"capture.enabled", "MEM_CAPTURE", "capture observations from agent sessions", &s.Capture.Enabled, Range{}},
		{"exclude.paths", "MEM_EXCLUDE", "path patterns whose projects get no injection and no capture", &s.Exclude.Paths, Range{}},
		{"inject.budget", "", "token budget of the session-start block", &s.Inject.Budget, Range{1, 1_000_000}},
		{"inject.compact_budget", "", "token budget of the compaction block", &s.Inject.CompactBudget, Range{1, 1_000_000}},
		{"inject.max_chars", "", "character cap of an injected block (Claude Code's cap)", &s.Inject.MaxChars, Range{1, 1_000_000}},
		{"recall.half_life", "", "age at which recency counts half", &s.Recall.HalfLife, span(time.Minute, 10*year)},
		{"recall.weight.recency", "", "weight of recency in relevance", &s.Recall.Weight.Recency, Range{0, 1}},
		{"recall.weight.importance", "", "weight of the observation type in relevance", &s.Recall.Weight.Importance, Range{0, 1}},
		{"recall.weight.agent_type", "", "weight of an agent-type match in relevance", &s.Recall.Weight.AgentType, Range{0, 1}},
		{"recall.weight.keyword", "", "weight of keyword matches in relevance", &s.Recall.Weight.Keyword, Range{0, 1}},
		{"hook.deadline", "MEM_HOOK_DEADLINE", "time a hook may take before it answers with no context (under the 5s timeout mem install gives editors)", &s.Hook.Deadline,
			span(50*time.Millisecond, 4*time.Second)},
		{"hook.log", "MEM_HOOK_LOG", "file hook problems are logged to", &s.Hook.Log, Range{}},
		{"summarize.llm_cmd", "MEM_LLM_CMD", "shell command that summarizes a session (JSON in, JSON out)", &s.Summarize.LLMCmd, Range{}},
		{"summarize.timeout", "", "time the summarizer command may take per session", &s.Summarize.Timeout, span(time.Second, 24*time.Hour)},
		{"summarize.idle", "", "idle time after which an open session is summarized", &s.Summarize.Idle, span(time.Minute, year)},
		{"sync.url", "MEM_SYNC_URL", "the team's rqlite nodes (http:// or https://, comma-separated; mem remote set)", &s.Sync.URL, Range{}},
		{"sync.user", "MEM_SYNC_USER", "user name for the cluster (rqlite -auth)", &s.Sync.User, Range{}},
		{"sync.password", "MEM_SYNC_PASSWORD", "password for the cluster; never shown (mem remote set --password-stdin)", &s.Sync.Password, Range{}},
		{"sync.ca_file", "", "PEM file of the CA that signed the nodes' certificates (https)", &s.Sync.CAFile, Range{}},
		{"sync.timeout", "", "time one request to the cluster may take", &s.Sync.Timeout, span(100*time.Millisecond, 10*time.Minute)},
		{"sync.deadline", "", "time a background sync (after a session ends, nightly) may take", &s.Sync.Deadline, span(time.Second, 24*time.Hour)},
		{"sync.page", "", "records a pull reads from the cluster at once", &s.Sync.Page, Range{100, 100_000}},
		{"sync.after_session", "MEM_SYNC_AFTER_SESSION", "sync shared projects in the background when a session ends", &s.Sync.AfterSession, Range{}},
		{"retention.decision", "", "forget decision observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Decision, span(0, 100*year)},
		{"retention.problem", "", "forget problem observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Problem, span(0, 100*year)},
		{"retention.warning", "", "forget warning observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Warning, span(0, 100*year)},
		{"retention.refactor", "", "forget refactor observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Refactor, span(0, 100*year)},
		{"retention.success", "", "forget success observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Success, span(0, 100*year)},
		{"retention.discovery", "", "forget discovery observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Discovery, span(0, 100*year)},
		{"retention.feature", "", "forget feature observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Feature, span(0, 100*year)},
		{"retention.bugfix", "", "forget bugfix observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Bugfix, span(0, 100*year)},
		{"retention.pattern", "", "forget pattern observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Pattern, span(0, 100*year)},
		{"retention.solution", "", "forget solution observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Solution, span(0, 100*year)},
		{"retention.change", "", "forget change observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Change, span(0, 100*year)},
		{"retention.note", "", "forget note observations older than this that no summary quotes, in the nightly job (0: keep)", &s.Retention.Note, span(0, 100*year)},
		{"sync.share_machine", "", "send the team this machine's host name (in the origin of what it pushes) and the sessions' working folders (cwd); off: a random name and no folder",
			&s.Sync.ShareMachine, Range{}},
		{"sync.review", "", "records pulled from the team held for mem review: flagged (what the instruction check flags), all (every observation and summary until a person releases it), off (what the check flags is set aside, never stored)",
			&s.Sync.Review, Range{}},
		{"web.addr", "MEM_WEB_ADDR", "address mem web listens on, host:port (the default port falls back to a free one when taken)", &s.Web.Addr, Range{}},
		{"web.token_file", "", "file keeping mem web's token across restarts (0600; mem web --new-token replaces it)", &s.Web.TokenFile, Range{}},
		{"context.memory_triggers", "", "prompt-time recall: symbols, paths and questions in a prompt search memory", &c.MemoryTriggers, Range{}},
		{"context.file_activity", "", "reading or editing a file brings what memory knows about it", &c.FileActivity, Range{}},
		{"context.directory_agents", "", "first touch of a directory brings its AGENTS.md (up to the project root)", &c.DirectoryAgents, Range{}},
		{"context.directory_readme", "", "first touch of a directory brings its README.md (up to the project root)", &c.DirectoryReadme, Range{}},
		{"context.rules_injector", "", "rule files whose globs match a touched file (.github/instructions, .cursor/rules, .claude/rules)",
			&c.RulesInjector, Range{}},
		{"context.keyword_detector", "", "prompts containing a configured keyword get its context", &c.KeywordDetector, Range{}},
		{"context.custom", "", "deliver entries registered by scripts with mem context add", &c.Custom, Range{}},
		{"context.keywords", "", "keyword=file pairs: a prompt containing keyword gets the file's text (high priority)", &c.Keywords, Range{}},
		{"context.min_relevance", "", "minimum relevance (0-1) of a prompt-time search result", &c.MinRelevance, Range{0, 1}},
		{"context.prompt_budget", "", "token budget of what one prompt's triggers register", &c.PromptBudget, Range{1, 100_000}},
		{"context.file_budget", "", "token budget of one AGENTS.md, README.md or rule file", &c.FileBudget, Range{1, 100_000}},
		{"context.carry_over", "", "how many of the session's last triggers carry over to the next prompt", &c.CarryOver, Range{0, 100}},
	}
}

// Keys returns every key, bound to the defaults for these folders.
func Keys(d Dirs) []Key {
	s := Defaults(d)
	return bind(&s)
}

// numeric reports whether the key holds a number or a duration.
func (k Key) numeric() bool {
	switch k.Field.(type) {
	case *int, *float64, *time.Duration:
		return true
	}
	return false
}

// Value formats the field's current value as the config file would take it.
func (k Key) Value() string {
	switch p := k.Field.(type) {
	case *string:
		return *p
	case *[]string:
		return strings.Join(*p, ",")
	case *bool:
		return strconv.FormatBool(*p)
	case *int:
		return strconv.Itoa(*p)
	case *float64:
		return strconv.FormatFloat(*p, 'f', -1, 64)
	case *time.Duration:
		return formatDuration(*p)
	}
	panic(fmt.Sprintf("config: key %s has a field of type %T", k.Name, k.Field))
}

// Accepts says what the key accepts, with its range.
func (k Key) Accepts() string {
	var what string
	switch k.Field.(type) {
	case *string:
		return "text"
	case *[]string:
		return "a comma-separated list"
	case *bool:
		return "true or false"
	case *int:
		what = "a whole number"
	case *float64:
		what = "a number"
	case *time.Duration:
		what = "a duration"
	}
	bound := func(f float64) string {
		if _, ok := k.Field.(*time.Duration); ok {
			return formatDuration(time.Duration(f))
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprintf("%s from %s to %s", what, bound(k.Range.Min), bound(k.Range.Max))
}

// formatDuration writes 2h rather than 2h0m0s.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// set parses v into the key's field; a value that is not of its kind or out
// of its range leaves the field as it was.
func (k Key) set(v string) error {
	var (
		n      float64
		err    error
		assign func()
	)
	switch p := k.Field.(type) {
	case *string:
		*p = v
		return nil
	case *[]string:
		*p = nil
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*p = append(*p, s)
			}
		}
		return nil
	case *bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("true or false")
		}
		*p = b
		return nil
	case *int:
		i, e := strconv.Atoi(v)
		n, err, assign = float64(i), e, func() { *p = i }
	case *float64:
		f, e := strconv.ParseFloat(v, 64)
		n, err, assign = f, e, func() { *p = f }
	case *time.Duration:
		d, e := time.ParseDuration(v)
		n, err, assign = float64(d), e, func() { *p = d }
	}
	if err != nil || !(n >= k.Range.Min && n <= k.Range.Max) { // NaN is in no range
		return errors.New(k.Accepts())
	}
	assign()
	return nil
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

// LoadForWrite is Load for a command that writes the config file (mem
// remote set): a MEM_CONFIG file that does not exist yet is no error.
func LoadForWrite(getenv func(string) string, flags map[string]string) (*Config, error) {
	return loadFile(getenv, flags, false, true)
}

func load(getenv func(string) string, flags map[string]string, lenient bool) (*Config, error) {
	return loadFile(getenv, flags, lenient, false)
}

func loadFile(getenv func(string) string, flags map[string]string, lenient, mayBeMissing bool) (*Config, error) {
	dirs := UserDirs(getenv)
	c := &Config{Settings: Defaults(dirs), from: map[string]Setting{}, lenient: lenient}
	c.keys = bind(&c.Settings)
	c.File = getenv("MEM_CONFIG")
	explicit := c.File != ""
	if !explicit {
		c.File = filepath.Join(dirs.Config, "config.toml")
	}
	if err := c.loadFile(explicit && !mayBeMissing); err != nil {
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
	k, ok := c.key(name)
	if !ok {
		// The name is quoted: a garbage file may hold control characters.
		return memory.Invalid("config key ("+detail+")", "one of "+strings.Join(c.names(), ", "), name)
	}
	if err := k.set(v); err != nil {
		shown := v
		if k.Secret() {
			shown = Hidden
		}
		bad := memory.Invalid(name+" ("+detail+")", err.Error(), HideURLUsers(shown))
		if c.lenient && k.numeric() {
			if c.skipped == nil {
				c.skipped = bad
			}
			return nil
		}
		return bad
	}
	c.from[name] = Setting{Source: source, Detail: detail}
	return nil
}

func (c *Config) key(name string) (Key, bool) {
	for _, k := range c.keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

func (c *Config) names() []string {
	out := make([]string, 0, len(c.keys))
	for _, k := range c.keys {
		out = append(out, k.Name)
	}
	sort.Strings(out)
	return out
}

// All returns every setting with its effective value and where it came
// from, sorted by key.
func (c *Config) All() []Setting {
	out := make([]Setting, 0, len(c.keys))
	for _, k := range c.keys {
		out = append(out, c.setting(k))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func (c *Config) setting(k Key) Setting {
	s, ok := c.from[k.Name]
	if !ok {
		s.Source = SourceDefault
	}
	s.Key, s.Value = k.Name, k.Shown()
	return s
}

// Shown is the field's value as mem prints it: a secret's hidden, and
// the user and password written into a node's address (sync.url) too.
func (k Key) Shown() string {
	v := k.Value()
	switch {
	case k.Secret() && v != "":
		return Hidden
	case k.Name == "sync.url":
		return HideURLUsers(v)
	}
	return v
}

// Hidden is shown in place of a secret's value.
const Hidden = "(set, hidden)"

// Secret reports whether a key's value is never shown.
func (k Key) Secret() bool { return k.Name == "sync.password" }

// Origin returns the setting of a field of c.Settings, for where it came
// from: c.Origin(&c.Settings.DB).Source. Any other pointer panics, since it
// is a programming error.
func (c *Config) Origin(field any) Setting {
	for _, k := range c.keys {
		if k.Field == field {
			return c.setting(k)
		}
	}
	panic(fmt.Sprintf("config: %T is not a field of the settings", field))
}
