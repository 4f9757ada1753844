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
	"regexp"
	"strings"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/text"
)

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

// Over is p as one write over before: a plan made on what another plan
// writes, taken with it as one change of the file as it is.
func (p Plan) Over(before []byte) Plan {
	p.Before, p.Changed = before, !bytes.Equal(before, p.After)
	return p
}

// Places are the folders settings paths are built from.
type Places struct {
	Home       string
	ConfigHome string // XDG_CONFIG_HOME or ~/.config
	Root       string // the project root, for project scope
	// Getenv gives the environment, for an agent whose folder a variable
	// moves (Codex: CODEX_HOME).
	Getenv func(string) string
}

// Path returns the file install writes for agent in scope.
func Path(agent, scope string, p Places) (string, error) {
	return agentPath(agent, scope, p, func(a Agent) Paths { return a.Settings })
}

// agentPath returns the file of agent in scope that file picks.
func agentPath(agent, scope string, p Places, file func(Agent) Paths) (string, error) {
	if scope != ScopeUser && scope != ScopeProject {
		return "", fmt.Errorf("scope %q: want user or project", scope)
	}
	a, ok := Lookup(agent)
	if !ok {
		return "", unknownAgent(agent)
	}
	return file(a).For(scope, p)
}

// hookEvent is one event mem listens to in a JSON settings file.
type hookEvent struct {
	name    string
	matcher string
}

// jsonHooks merges mem's hooks into a JSON settings file as Claude Code,
// Codex and Gemini read them: "hooks": {event: [{"matcher": ..., "hooks":
// [{"type": "command", "command": ..., "timeout": ...}]}]}.
type jsonHooks struct {
	events  []hookEvent
	timeout int // in the agent's unit
	// limits holds the agent's own lower limit for an event's timeout, so
	// that the agent need not cut it down (and say so) on every start.
	limits map[string]int
	named  bool // hook entries carry a name (Gemini)
}

// Command returns the hook command line for the mem binary at bin.
func Command(bin, agent string) string {
	return shellQuote(bin) + " hook " + agent
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return text.ShellQuote(s)
}

// ours recognises a hook command mem installed for arg, wherever the
// binary was then, as long as it was named mem.
func ours(arg string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s/\\'"])mem(?:\.exe)?['"]?\s+hook\s+` + regexp.QuoteMeta(arg) + `\s*$`)
}

// matcher recognises mem's hook entries for arg: those whose command is
// what Command(bin, arg) writes, those of a binary named mem anywhere, and,
// where entries carry a name (Gemini), those named mem that run
// "<any binary> hook <arg>", since that name says who wrote them.
func (h jsonHooks) matcher(arg, bin string) func(entry *object) bool {
	re := ours(arg)
	anyBin := regexp.MustCompile(`\s+hook\s+` + regexp.QuoteMeta(arg) + `\s*$`)
	exact := ""
	if bin != "" {
		exact = Command(bin, arg)
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
		return h.named && name == "mem" && anyBin.MatchString(c)
	}
}

// Install returns the plan that adds mem's hooks (running bin) to the
// settings file whose current content is before (nil when it does not exist).
func Install(agent, path string, before []byte, bin string) (Plan, error) {
	p := Plan{Agent: agent, Path: path, Before: before}
	a, ok := Lookup(agent)
	if !ok {
		return p, unknownAgent(agent)
	}
	p.Agent = a.Name
	if err := a.Hooks.install(&p, a.Name, bin); err != nil {
		return p, err
	}
	p.Notes = a.Notes
	return p, nil
}

func (h jsonHooks) install(p *Plan, arg, bin string) error {
	doc, err := parseSettings(p.Path, p.Before)
	if err != nil {
		return err
	}
	// Emptied events and "hooks" stay where they are for mem's hooks to
	// go back into, so that installing again changes nothing.
	emptied := removeOurs(doc, h.matcher(arg, bin), false)
	hooks, ok := asObject(doc, "hooks")
	if !ok {
		return fmt.Errorf("%s: \"hooks\" is not an object: fix it first; nothing was changed", p.Path)
	}
	cmd := Command(bin, arg)
	for _, ev := range h.events {
		entry := newObject()
		if h.named {
			entry.set("name", "mem")
		}
		entry.set("type", "command")
		entry.set("command", cmd)
		timeout := h.timeout
		if l, ok := h.limits[ev.name]; ok {
			timeout = min(timeout, l)
		}
		entry.set("timeout", json.Number(fmt.Sprint(timeout)))
		group := newObject()
		if ev.matcher != "" {
			group.set("matcher", ev.matcher)
		}
		group.set("hooks", []any{entry})
		groups, ok := hooks.vals[ev.name].([]any)
		if v, had := hooks.vals[ev.name]; had && !ok {
			return fmt.Errorf("%s: \"hooks\".%q is %s, want an array of hook groups ([{\"matcher\": ..., \"hooks\": [...]}]): fix it first; nothing was changed", p.Path, ev.name, jsonKind(v))
		}
		hooks.set(ev.name, append(groups, group))
	}
	p.settle(doc, hooks, emptied)
	return nil
}

// settle finishes an install into doc: the events in emptied that hold no
// entry any more go (mem no longer listens to them), and p gets the new
// content and whether it differs.
func (p *Plan) settle(doc, hooks *object, emptied []string) {
	for _, ev := range emptied {
		if list, _ := hooks.vals[ev].([]any); len(list) == 0 {
			hooks.del(ev)
		}
	}
	p.After = encode(doc)
	p.Changed = p.Before == nil || !bytes.Equal(normalize(p.Before), p.After)
}

// parseSettings parses a JSON settings file's content (an empty object for
// nil).
func parseSettings(path string, before []byte) (*object, error) {
	doc, err := parseObject(before)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%w): fix it first; nothing was changed", path, err)
	}
	return doc, nil
}

// unknownAgent is the error for an agent mem cannot install into.
func unknownAgent(name string) error {
	return fmt.Errorf("agent %q: want one of %s", name, strings.Join(agent.Names(), ", "))
}

// Uninstall returns the plan that removes what Install added: mem's hook
// entries (those running bin, or a binary named mem), and the groups,
// events and "hooks" object left empty by that.
func Uninstall(agent, path string, before []byte, bin string) (Plan, error) {
	p := Plan{Agent: agent, Path: path, Before: before}
	if before == nil {
		return p, nil
	}
	a, ok := Lookup(agent)
	if !ok {
		return p, unknownAgent(agent)
	}
	p.Agent = a.Name
	return p, a.Hooks.uninstall(&p, a.Name, bin)
}

func (h jsonHooks) uninstall(p *Plan, arg, bin string) error {
	doc, err := parseSettings(p.Path, p.Before)
	if err != nil {
		return err
	}
	if removeOurs(doc, h.matcher(arg, bin), true) != nil {
		p.After = encodeOrRemove(doc)
		p.Changed = true
	} else {
		p.After = p.Before
	}
	return nil
}

// encodeOrRemove encodes what uninstall leaves, or nil (remove the file)
// when that is an empty object: a file mem created holds nothing else, and
// an agent reads a missing settings file as an empty one.
func encodeOrRemove(doc *object) []byte {
	if len(doc.keys) == 0 {
		return nil
	}
	return encode(doc)
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
// groups they leave empty; with prune, also the events and "hooks" they
// leave empty (without, those stay as empty arrays). It returns the events
// it changed.
func removeOurs(doc *object, isOurs func(entry *object) bool, prune bool) []string {
	return filterEvents(doc, prune, func(groups []any) ([]any, bool) {
		var keptGroups []any
		changed := false
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
			kept, emptied := keepOthers(list, isOurs)
			if !emptied {
				keptGroups = append(keptGroups, g)
				continue
			}
			changed = true
			if len(kept) > 0 {
				group.set("hooks", kept)
				keptGroups = append(keptGroups, group)
			}
		}
		return keptGroups, changed
	})
}

// keepOthers returns the members of list isOurs does not recognise, and
// whether it left any out.
func keepOthers(list []any, isOurs func(entry *object) bool) ([]any, bool) {
	var kept []any
	for _, e := range list {
		if eo, ok := e.(*object); ok && isOurs(eo) {
			continue
		}
		kept = append(kept, e)
	}
	return kept, len(kept) != len(list)
}

// filterEvents runs filter on each event of doc's "hooks" that is an array:
// filter returns the event's members to keep and whether it changed any. A
// changed event keeps what is left; emptied, it is removed with prune and
// left as [] without. With prune, "hooks" goes too when that empties it. It
// returns the events it changed.
func filterEvents(doc *object, prune bool, filter func(list []any) ([]any, bool)) []string {
	hooks, ok := doc.vals["hooks"].(*object)
	if !ok {
		return nil
	}
	var changed []string
	for _, event := range append([]string(nil), hooks.keys...) {
		list, ok := hooks.vals[event].([]any)
		if !ok {
			continue
		}
		kept, did := filter(list)
		if !did {
			continue
		}
		changed = append(changed, event)
		switch {
		case len(kept) > 0:
			hooks.set(event, kept)
		case prune:
			hooks.del(event)
		default:
			hooks.set(event, []any{})
		}
	}
	if prune && changed != nil && len(hooks.keys) == 0 {
		doc.del("hooks")
	}
	return changed
}
