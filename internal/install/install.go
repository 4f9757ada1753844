// Package install merges mem's hook entries into an agent's own settings
// file, and takes exactly those entries out again. Install, Uninstall and
// their MCP forms work on bytes, so a dry run is the same computation
// without the write; Read and Apply read and write the files (with a
// backup) without following links out of place.
package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/memhq/mem/internal/lazy"
)

// Agents that mem installs into, as `mem install` names them.
var Agents = []string{"claude", "codex", "gemini", "opencode"}

// Scopes.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
)

// Plan is what install or uninstall would do to one file.
type Plan struct {
	Agent   string   `json:"agent"`
	Path    string   `json:"path"`
	Before  []byte   `json:"-"`
	After   []byte   `json:"-"` // nil: remove the file
	Changed bool     `json:"changed"`
	Notes   []string `json:"notes,omitempty"`
}

// Places are the folders settings paths are built from.
type Places struct {
	Home       string
	ConfigHome string // XDG_CONFIG_HOME or ~/.config
	CodexHome  string // CODEX_HOME or ~/.codex
	Root       string // the project root, for project scope
}

// Path returns the file install writes for agent in scope.
func Path(agent, scope string, p Places) (string, error) {
	if scope != ScopeUser && scope != ScopeProject {
		return "", fmt.Errorf("scope %q: want user or project", scope)
	}
	user := scope == ScopeUser
	switch agent {
	case "claude":
		if user {
			return filepath.Join(p.Home, ".claude", "settings.json"), nil
		}
		return filepath.Join(p.Root, ".claude", "settings.json"), nil
	case "codex":
		if user {
			return filepath.Join(p.CodexHome, "hooks.json"), nil
		}
		return filepath.Join(p.Root, ".codex", "hooks.json"), nil
	case "gemini":
		if user {
			return filepath.Join(p.Home, ".gemini", "settings.json"), nil
		}
		return filepath.Join(p.Root, ".gemini", "settings.json"), nil
	case "opencode":
		if user {
			return filepath.Join(p.ConfigHome, "opencode", "plugins", "mem.js"), nil
		}
		return filepath.Join(p.Root, ".opencode", "plugins", "mem.js"), nil
	}
	return "", unknownAgent(agent)
}

// hookEvent is one event mem listens to in a JSON settings file.
type hookEvent struct {
	name    string
	matcher string
}

// settings describes an agent whose hooks live in a JSON settings file.
type settings struct {
	arg     string // the `mem hook` argument
	events  []hookEvent
	timeout int  // in the agent's unit
	named   bool // hook entries carry a name (Gemini)
}

// Claude's PostToolUse fires for every tool; the matcher keeps the hook
// process for the tools capture reads.
var agentSettings = &lazy.Value[map[string]settings]{New: func() map[string]settings {
	return map[string]settings{
		"claude": {arg: "claude", timeout: 5, events: []hookEvent{
			{"SessionStart", ""}, {"UserPromptSubmit", ""},
			{"PostToolUse", "Edit|MultiEdit|Write|NotebookEdit|Bash|Read|Grep|Glob"},
			{"PostToolUseFailure", "Edit|MultiEdit|Write|NotebookEdit|Bash"},
			{"PreCompact", ""}, {"Stop", ""}, {"SubagentStop", ""}, {"SessionEnd", ""},
		}},
		"codex": {arg: "codex", timeout: 5, events: []hookEvent{
			{"SessionStart", ""}, {"UserPromptSubmit", ""}, {"PostToolUse", ""}, {"Stop", ""},
		}},
		"gemini": {arg: "gemini", timeout: 5000, named: true, events: []hookEvent{
			{"SessionStart", ""}, {"BeforeAgent", ""},
			{"AfterTool", "replace|write_file|run_shell_command|read_file|read_many_files|glob|search_file_content|list_directory"},
			{"PreCompress", ""}, {"AfterAgent", ""}, {"SessionEnd", ""},
		}},
	}
}}

// Command returns the hook command line for the mem binary at bin.
func Command(bin, agent string) string {
	arg := agent
	if s, ok := agentSettings.Get()[agent]; ok {
		arg = s.arg
	}
	return shellQuote(bin) + " hook " + arg
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ours recognises a hook command mem installed for arg, wherever the
// binary was then, as long as it was named mem.
func ours(arg string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s/\\'"])mem(?:\.exe)?['"]?\s+hook\s+` + regexp.QuoteMeta(arg) + `\s*$`)
}

// matcher recognises mem's hook entries for agent: those whose command is
// what Command(bin, agent) writes, those of a binary named mem anywhere,
// and, where entries carry a name (Gemini), those named mem that run
// "<any binary> hook <agent>", since that name says who wrote them.
func matcher(agent, bin string) func(entry *object) bool {
	s := agentSettings.Get()[agent]
	re := ours(s.arg)
	anyBin := regexp.MustCompile(`\s+hook\s+` + regexp.QuoteMeta(s.arg) + `\s*$`)
	exact := ""
	if bin != "" {
		exact = Command(bin, agent)
	}
	return func(entry *object) bool {
		c, ok := entry.vals["command"].(string)
		if !ok {
			return false
		}
		if (exact != "" && strings.TrimSpace(c) == exact) || re.MatchString(c) {
			return true
		}
		name, _ := entry.vals["name"].(string)
		return s.named && name == "mem" && anyBin.MatchString(c)
	}
}

// Install returns the plan that adds mem's hooks (running bin) to the
// settings file whose current content is before (nil when it does not exist).
func Install(agent, path string, before []byte, bin string) (Plan, error) {
	p := Plan{Agent: agent, Path: path, Before: before}
	if agent == "opencode" {
		p.After = Plugin(bin)
		p.Changed = !bytes.Equal(before, p.After)
		if before != nil && !IsPlugin(before) {
			return p, fmt.Errorf("%s exists and is not mem's plugin: move it away first", path)
		}
		return p, nil
	}
	s, doc, err := settingsFile(agent, path, before)
	if err != nil {
		return p, err
	}
	removeOurs(doc, matcher(agent, bin))
	hooks, ok := asObject(doc, "hooks")
	if !ok {
		return p, fmt.Errorf("%s: \"hooks\" is not an object: fix it first; nothing was changed", path)
	}
	cmd := Command(bin, agent)
	for _, ev := range s.events {
		entry := newObject()
		if s.named {
			entry.set("name", "mem")
		}
		entry.set("type", "command")
		entry.set("command", cmd)
		entry.set("timeout", json.Number(fmt.Sprint(s.timeout)))
		group := newObject()
		if ev.matcher != "" {
			group.set("matcher", ev.matcher)
		}
		group.set("hooks", []any{entry})
		groups, ok := hooks.vals[ev.name].([]any)
		if v, had := hooks.vals[ev.name]; had && !ok {
			return p, fmt.Errorf("%s: \"hooks\".%q is %s, want an array of hook groups ([{\"matcher\": ..., \"hooks\": [...]}]): fix it first; nothing was changed", path, ev.name, jsonKind(v))
		}
		hooks.set(ev.name, append(groups, group))
	}
	p.After = encode(doc)
	p.Changed = before == nil || !bytes.Equal(normalize(before), p.After)
	if agent == "codex" {
		p.Notes = append(p.Notes, "Codex runs hooks only with [features] codex_hooks = true in its config.toml")
	}
	return p, nil
}

// settingsFile returns what mem writes into agent's JSON settings file and
// the file's content parsed (an empty object for nil).
func settingsFile(agent, path string, before []byte) (settings, *object, error) {
	s, ok := agentSettings.Get()[agent]
	if !ok {
		return s, nil, unknownAgent(agent)
	}
	doc, err := parseObject(before)
	if err != nil {
		return s, nil, fmt.Errorf("%s is not valid JSON (%v): fix it first; nothing was changed", path, err)
	}
	return s, doc, nil
}

// unknownAgent is the error for an agent mem cannot install into.
func unknownAgent(agent string) error {
	return fmt.Errorf("agent %q: want one of %s", agent, strings.Join(Agents, ", "))
}

// Uninstall returns the plan that removes what Install added: mem's hook
// entries (those running bin, or a binary named mem), and the groups,
// events and "hooks" object left empty by that.
func Uninstall(agent, path string, before []byte, bin string) (Plan, error) {
	p := Plan{Agent: agent, Path: path, Before: before}
	if before == nil {
		return p, nil
	}
	if agent == "opencode" {
		if !IsPlugin(before) {
			return p, fmt.Errorf("%s is not mem's plugin: left alone", path)
		}
		p.Changed = true // After nil: remove the file
		return p, nil
	}
	_, doc, err := settingsFile(agent, path, before)
	if err != nil {
		return p, err
	}
	if removeOurs(doc, matcher(agent, bin)) {
		p.After = encode(doc)
		p.Changed = true
	} else {
		p.After = before
	}
	return p, nil
}

// normalize re-encodes a JSON object the way this package writes it, so a
// file that already holds exactly mem's hooks counts as unchanged.
func normalize(b []byte) []byte {
	doc, err := parseObject(b)
	if err != nil {
		return b
	}
	return encode(doc)
}

// jsonKind names the JSON type of a parsed value, for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case *object:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// asObject returns doc[key] as an object, creating it when absent.
func asObject(doc *object, key string) (*object, bool) {
	v, ok := doc.get(key)
	if !ok {
		o := newObject()
		doc.set(key, o)
		return o, true
	}
	o, ok := v.(*object)
	return o, ok
}

// removeOurs takes the hook entries isOurs recognises out of doc, and the
// containers they leave empty; it reports whether it removed anything.
func removeOurs(doc *object, isOurs func(entry *object) bool) bool {
	hooks, ok := doc.vals["hooks"].(*object)
	if !ok {
		return false
	}
	removed := false
	for _, event := range append([]string(nil), hooks.keys...) {
		groups, ok := hooks.vals[event].([]any)
		if !ok {
			continue
		}
		var keptGroups []any
		eventChanged := false
		for _, g := range groups {
			group, ok := g.(*object)
			if !ok {
				keptGroups = append(keptGroups, g)
				continue
			}
			list, ok := group.vals["hooks"].([]any)
			if !ok {
				keptGroups = append(keptGroups, g)
				continue
			}
			var kept []any
			for _, h := range list {
				if ho, ok := h.(*object); ok && isOurs(ho) {
					continue
				}
				kept = append(kept, h)
			}
			if len(kept) == len(list) {
				keptGroups = append(keptGroups, g)
				continue
			}
			eventChanged = true
			if len(kept) > 0 {
				group.set("hooks", kept)
				keptGroups = append(keptGroups, group)
			}
		}
		if !eventChanged {
			continue
		}
		removed = true
		if len(keptGroups) == 0 {
			hooks.del(event)
		} else {
			hooks.set(event, keptGroups)
		}
	}
	if removed && len(hooks.keys) == 0 {
		doc.del("hooks")
	}
	return removed
}
