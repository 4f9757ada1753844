package install

import (
	"encoding/json"
	"fmt"
	"strings"
)

// flatHooks merges mem's hooks into a hooks file of version 1 as GitHub
// Copilot CLI and Cursor read it: {"version": 1, "hooks": {event: [entry,
// ...]}}, each event a list of entries, without the groups of Claude's
// shape; an entry holds its command under key and, where an event takes
// one, a "matcher". The editing is jsonHooks' (order kept, one-line values
// written back as they were, wrong-typed events refused), so uninstall gives
// the file back byte for byte.
type flatHooks struct {
	events []hookEvent
	key    string                   // the entry's field holding the command line
	entry  func(cmd string) *object // mem's entry, running cmd
}

// matcher recognises mem's entries for arg: the command install writes for
// bin, or that of a binary named mem anywhere.
func (h flatHooks) matcher(arg, bin string) func(entry *object) bool {
	re := ours(arg)
	exact := ""
	if bin != "" {
		exact = Command(bin, arg)
	}
	return func(entry *object) bool {
		c, ok := entry.vals[h.key].(string)
		return ok && ((exact != "" && strings.TrimSpace(c) == exact) || re.MatchString(c))
	}
}

// flatVersion is the version of the hooks files mem writes.
const flatVersion = "1"

// check refuses a file whose shape install would have to guess at: a
// version other than 1, "hooks" not an object, an event mem adds to that
// is not an array.
func (h flatHooks) check(path string, doc *object) error {
	if v, ok := doc.get("version"); ok {
		if n, isNum := v.(json.Number); !isNum || n.String() != flatVersion {
			return fmt.Errorf("%s: \"version\" is %s, want 1: fix it first; nothing was changed", path, compact(v))
		}
	}
	hooks, ok := doc.get("hooks")
	if !ok {
		return nil
	}
	ho, ok := hooks.(*object)
	if !ok {
		return fmt.Errorf("%s: \"hooks\" is %s, want an object: fix it first; nothing was changed", path, jsonKind(hooks))
	}
	for _, ev := range h.events {
		if v, had := ho.vals[ev.name]; had {
			if _, isList := v.([]any); !isList {
				return fmt.Errorf("%s: \"hooks\".%q is %s, want an array of hook entries ([{%q: ...}]): fix it first; nothing was changed",
					path, ev.name, jsonKind(v), h.key)
			}
		}
	}
	return nil
}

func (h flatHooks) install(p *Plan, arg, bin string) error {
	doc, err := parseSettings(p.Path, p.Before)
	if err != nil {
		return err
	}
	if err := h.check(p.Path, doc); err != nil {
		return err
	}
	if _, ok := doc.get("version"); !ok {
		// The version comes first, as the agents' own examples write it.
		doc.keys = append([]string{"version"}, doc.keys...)
		doc.vals["version"] = json.Number(flatVersion)
	}
	// Emptied events stay where they are for mem's entries to go back into,
	// so that installing again changes nothing.
	emptied := removeFlat(doc, h.matcher(arg, bin), false)
	hooks, _ := asObject(doc, "hooks")
	cmd := Command(bin, arg)
	for _, ev := range h.events {
		entry := h.entry(cmd)
		if ev.matcher != "" {
			entry.set("matcher", ev.matcher)
		}
		list, _ := hooks.vals[ev.name].([]any)
		hooks.set(ev.name, append(list, entry))
	}
	p.settle(doc, hooks, emptied)
	return nil
}

func (h flatHooks) uninstall(p *Plan, arg, bin string) error {
	doc, err := parseSettings(p.Path, p.Before)
	if err != nil {
		return err
	}
	if removeFlat(doc, h.matcher(arg, bin), true) == nil {
		p.After = p.Before
		return nil
	}
	p.Changed = true
	if _, hasHooks := doc.get("hooks"); !hasHooks && len(doc.keys) == 1 && doc.keys[0] == "version" {
		// A hooks file of no hooks is nothing to the agent: the file mem
		// created goes.
		p.After = nil
		return nil
	}
	p.After = encodeOrRemove(doc)
	return nil
}

// removeFlat takes the entries isOurs recognises out of doc's events; with
// prune, also the events and "hooks" they leave empty (without, emptied
// events stay as empty arrays). It returns the events it changed.
func removeFlat(doc *object, isOurs func(entry *object) bool, prune bool) []string {
	return filterEvents(doc, prune, func(list []any) ([]any, bool) { return keepOthers(list, isOurs) })
}
