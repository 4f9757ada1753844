package install

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Trust is where an agent records that the user trusts a hook, for an
// agent that runs a user's hooks only once they are trusted (Codex). mem
// install records trust for exactly the hooks it added, and uninstall takes
// exactly that out again.
type Trust struct {
	// File is the file trust is kept in (Codex: its user config.toml).
	File func(Places) string
	// Source is the settings file as the agent names it in a hook's key.
	Source func(Places) (string, error)
	// ProjectNote is what a project install tells the user to do, where
	// trust is not mem's to record.
	ProjectNote string
}

// HookTrust is one of mem's hooks and the trust the agent holds for it.
type HookTrust struct {
	Key     string `json:"key"`     // the agent's name for the hook
	Hash    string `json:"hash"`    // what the agent computes for it now
	Trusted string `json:"trusted"` // the hash trust was recorded for ("" for none)
	Enabled bool   `json:"enabled"` // false when the user turned the hook off
}

// Status says whether the agent runs the hook: "trusted", "untrusted" or
// "stale" (trusted once, then the hook changed).
func (h HookTrust) Status() string {
	switch h.Trusted {
	case "":
		return "untrusted"
	case h.Hash:
		return "trusted"
	}
	return "stale"
}

// TrustFor returns the trust an agent needs for its hooks in scope (nil
// when it needs none there). Codex reads trust from the user's
// config.toml only, and for a project's hooks a project install is meant
// for everyone who clones it: each user trusts those in Codex itself.
func TrustFor(agent, scope string) *Trust {
	a, ok := Lookup(agent)
	if !ok || scope != ScopeUser {
		return nil
	}
	return a.Trust
}

// NotesFor are what a user must still do after mem's hooks are installed
// for a in scope: a's notes and, in project scope, how to trust the hooks
// where a runs them only once trusted.
func (a Agent) NotesFor(scope string) []string {
	notes := slices.Clone(a.Notes)
	if a.Trust != nil && scope == ScopeProject {
		notes = append(notes, a.Trust.ProjectNote)
	}
	return notes
}

// HooksTrust lists mem's hooks in settings (the content of the agent's
// settings file, whose name in keys is source) and the trust conf (the
// content of the trust file) holds for each.
func HooksTrust(agent, source string, settings, conf []byte, bin string) ([]HookTrust, error) {
	a, ok := Lookup(agent)
	if !ok {
		return nil, unknownAgent(agent)
	}
	h, ok := a.Hooks.(jsonHooks)
	if !ok || a.Trust == nil {
		return nil, nil
	}
	hooks, err := codexHooks(source, settings, h.matcher(a.Name, bin))
	if err != nil {
		return nil, err
	}
	states, err := hookStates(conf)
	if err != nil {
		return nil, err
	}
	for i := range hooks {
		if s, ok := states[hooks[i].Key]; ok {
			hooks[i].Trusted = s.trusted
			hooks[i].Enabled = s.enabled
		}
	}
	return hooks, nil
}

// InstallTrust returns the plan that records trust, in the trust file at
// path (content before), for each of mem's hooks in settings.
func InstallTrust(agent, path, source string, settings, before []byte, bin string) (Plan, error) {
	return editTrust(agent, path, source, settings, before, bin, false)
}

// UninstallTrust returns the plan that takes out the trust recorded for
// each of mem's hooks in settings (the settings before mem's hooks are
// removed from them).
func UninstallTrust(agent, path, source string, settings, before []byte, bin string) (Plan, error) {
	return editTrust(agent, path, source, settings, before, bin, true)
}

func editTrust(agent, path, source string, settings, before []byte, bin string, remove bool) (Plan, error) {
	p := Plan{Agent: agent, Path: path, Before: before, After: before}
	hooks, err := HooksTrust(agent, source, settings, nil, bin)
	if err != nil {
		return p, err
	}
	if remove && before == nil {
		return p, nil
	}
	all, err := codexHooks(source, settings, func(*object) bool { return true })
	if err != nil {
		return p, err
	}
	at := hookPlaces{source: source, hashAt: map[string]string{}}
	for _, h := range all {
		at.hashAt[h.Key] = h.Hash
	}
	after, err := editHookStates(before, hooks, at, remove)
	if err != nil {
		return p, fmt.Errorf("%s: %w; nothing was changed", path, err)
	}
	if remove && len(after) == 0 {
		after = nil // nothing but mem's trust was there: remove the file
	}
	p.After, p.Changed = after, string(after) != string(before)
	return p, nil
}

// codexHooks lists the hooks of a Codex hooks.json that isOurs recognises,
// with the key and hash Codex gives them: the key is "<source>:<event in
// snake case>:<group index>:<hook index>", and the hash is the sha256 of
// the hook's normalized form as compact JSON with sorted keys: its event,
// the group's matcher, and the hook with its timeout (600 s when unset,
// SessionEnd's held to 3 s) and async flag.
func codexHooks(source string, settings []byte, isOurs func(*object) bool) ([]HookTrust, error) {
	doc, err := parseObject(settings)
	if err != nil {
		return nil, err
	}
	events, _ := doc.vals["hooks"].(*object)
	if events == nil {
		return nil, nil
	}
	var out []HookTrust
	for _, event := range events.keys {
		groups, _ := events.vals[event].([]any)
		label := snakeCase(event)
		for gi, g := range groups {
			group, _ := g.(*object)
			if group == nil {
				continue
			}
			list, _ := group.vals["hooks"].([]any)
			for hi, h := range list {
				entry, _ := h.(*object)
				if entry == nil || !isOurs(entry) {
					continue
				}
				hash, ok := codexHookHash(label, group, entry)
				if !ok {
					continue
				}
				out = append(out, HookTrust{Key: fmt.Sprintf("%s:%s:%d:%d", source, label, gi, hi), Hash: hash, Enabled: true})
			}
		}
	}
	return out, nil
}

// codexHookHash is the hash Codex computes for a command hook (false for a
// hook whose form mem does not know how Codex normalizes).
func codexHookHash(event string, group, entry *object) (string, bool) {
	command, ok := entry.vals["command"].(string)
	if !ok || entry.vals["type"] != "command" {
		return "", false
	}
	timeout := int64(600)
	if n, ok := entry.vals["timeout"].(json.Number); ok {
		t, err := n.Int64()
		if err != nil {
			return "", false
		}
		timeout = max(t, 1)
	}
	if event == "session_end" {
		timeout = min(timeout, 3)
	}
	async := false
	if v, ok := entry.vals["async"]; ok {
		if async, ok = v.(bool); !ok {
			return "", false
		}
	}
	var b strings.Builder
	b.WriteString(`{"event_name":` + serdeString(event) + `,"hooks":[{"async":` + strconv.FormatBool(async) +
		`,"command":` + serdeString(command))
	if m, ok := entry.vals["statusMessage"]; ok && m != nil {
		s, ok := m.(string)
		if !ok {
			return "", false
		}
		b.WriteString(`,"statusMessage":` + serdeString(s))
	}
	b.WriteString(`,"timeout":` + strconv.FormatInt(timeout, 10) + `,"type":"command"}]`)
	if m, ok := group.vals["matcher"]; ok && m != nil {
		s, ok := m.(string)
		if !ok || matcherlessEvent(event) {
			return "", false
		}
		b.WriteString(`,"matcher":` + serdeString(s))
	}
	b.WriteString("}")
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:]), true
}

// matcherlessEvent is an event whose matcher Codex ignores (and leaves out
// of the hash); mem never writes one there.
func matcherlessEvent(event string) bool {
	switch event {
	case "user_prompt_submit", "stop", "session_end":
		return true
	}
	return false
}

// serdeString writes s as a JSON string the way Rust's serde_json does:
// only the quote, the backslash and control characters are escaped (\b,
// \f, \n, \r, \t, or \u00xx in lower case); everything else, <, > and &
// and all of Unicode included, is written as it is.
func serdeString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// snakeCase turns an event name into the label Codex keys hooks by:
// SessionStart is session_start.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codexSource is the name Codex gives the user's hooks.json in keys: in
// CODEX_HOME with every link resolved (Codex resolves that variable), or
// in ~/.codex as it is.
func codexSource(p Places) (string, error) {
	if h := p.Getenv("CODEX_HOME"); h != "" {
		real, err := filepath.EvalSymlinks(h)
		if err != nil {
			return "", fmt.Errorf("CODEX_HOME: %w", err)
		}
		abs, err := filepath.Abs(real)
		if err != nil {
			return "", err
		}
		return filepath.Join(abs, "hooks.json"), nil
	}
	return filepath.Join(filepath.Clean(p.Home), ".codex", "hooks.json"), nil
}

// hookState is what a config.toml holds for one hook key.
type hookState struct {
	trusted string
	enabled bool
}

// errTrustForm and errTrustArray are returned for a config.toml that keeps
// hook state in a form mem does not edit line by line.
var (
	errTrustForm  = errors.New("hooks.state is written as an inline table or with dotted keys: trust mem's hooks with /hooks in codex instead")
	errTrustArray = errors.New("hooks or hooks.state is written as an array of tables ([[...]]): trust mem's hooks with /hooks in codex instead")
)

// hookKey returns the key of a [hooks.state."<key>"] table ("" for any
// other section).
func hookKey(s tomlSection) string {
	if !s.array && len(s.path) == 3 && s.path[0] == "hooks" && s.path[1] == "state" {
		return s.path[2]
	}
	return ""
}

// checkHookStateForm refuses a config.toml that writes hook state other
// than as [hooks.state."<key>"] tables, which mem could not edit without
// reformatting the user's lines or writing a key twice.
func checkHookStateForm(d tomlDoc) error {
	for _, s := range d.sections {
		if s.array && len(s.path) > 0 && s.path[0] == "hooks" && (len(s.path) == 1 || s.path[1] == "state") {
			return errTrustArray
		}
		for _, k := range d.keyLines(s) {
			// A key line may write hook state only inside a hook's own table.
			if len(k.full) >= 2 && k.full[0] == "hooks" && k.full[1] == "state" && len(s.path) < 3 {
				return errTrustForm
			}
			if len(k.full) == 1 && k.full[0] == "hooks" {
				return errTrustForm
			}
		}
	}
	return nil
}

// hookTables reads a config.toml, refusing one that keeps hook state in a
// form other than a table per hook.
func hookTables(conf []byte) (tomlDoc, error) {
	d, err := readTOML(conf)
	if err != nil {
		return d, err
	}
	return d, checkHookStateForm(d)
}

// hookStates reads the hook state a config.toml holds, by key.
func hookStates(conf []byte) (map[string]hookState, error) {
	d, err := hookTables(conf)
	if err != nil {
		return nil, err
	}
	states := map[string]hookState{}
	for _, s := range d.sections {
		key := hookKey(s)
		if key == "" {
			continue
		}
		st := hookState{enabled: true}
		for _, k := range d.keyLines(s) {
			if len(k.path) != 1 {
				continue
			}
			v := tomlValue(k.value)
			switch k.path[0] {
			case "trusted_hash":
				st.trusted = v
			case "enabled":
				st.enabled = v != "false"
			}
		}
		states[key] = st
	}
	return states, nil
}

// trustLine is the line mem writes into a hook's state table, ending in
// end.
func trustLine(hash, end string) string { return "trusted_hash = " + tomlString(hash) + end }

// hookPlaces is what a hooks.json holds at each key: the hash of the hook
// there, for every hook whose hash mem computes.
type hookPlaces struct {
	source string // the hooks.json as Codex names it in keys
	hashAt map[string]string
}

// movedFrom reports whether the state table for key, trusted for hash, is
// one recorded for one of mem's hooks (by its hash, ours) at a place in
// source where that hook no longer is: Codex keys a hook by its place, so
// a hook the user adds before mem's moves mem's to the next key and leaves
// this table naming another hook, with a hash that is not that hook's.
func (p hookPlaces) movedFrom(key, trusted string, ours map[string]string) bool {
	_, isOurs := ours[trusted]
	return isOurs && strings.HasPrefix(key, p.source+":") && p.hashAt[key] != trusted
}

// editHookStates records trust for hooks in a config.toml, or takes their
// state tables out. A hook already trusted with its hash changes nothing; a
// stale hash is replaced on its line; a hook without a table gets one at the
// end of the file, after a blank line. A table mem's hook left behind at a
// key it moved from is moved to the hook's new key, its other lines (the
// user's enabled = false) kept, or removed when the new key has a table.
// Taking out removes each hook's table, and any it left behind, with the
// blank line before it, so an install then an uninstall give the file back
// byte for byte; every other line stays as it was.
func editHookStates(conf []byte, hooks []HookTrust, places hookPlaces, remove bool) ([]byte, error) {
	d, err := hookTables(conf)
	if err != nil {
		return nil, err
	}
	lines := d.lines
	want := map[string]string{}  // mem's hooks: hash by key
	keyOf := map[string]string{} // and key by hash
	for _, h := range hooks {
		want[h.Key] = h.Hash
		if _, ok := keyOf[h.Hash]; !ok {
			keyOf[h.Hash] = h.Key
		}
	}
	tables := map[string]bool{}
	for _, s := range d.sections {
		tables[hookKey(s)] = true
	}
	drop := make([]bool, len(lines))
	replace := map[int]string{}
	insert := map[int]string{} // after line
	found := map[string]bool{}
	dropTable := func(s tomlSection) {
		for i := s.start; i < s.end; i++ {
			drop[i] = true
		}
		if b := s.start - 1; b >= 0 && strings.TrimSpace(lines[b]) == "" && !drop[b] {
			drop[b] = true
		}
	}
	for _, s := range d.sections {
		key := hookKey(s)
		if key == "" {
			continue
		}
		var at *tomlKeyLine
		for _, k := range d.keyLines(s) {
			if len(k.path) == 1 && k.path[0] == "trusted_hash" {
				at = &k
			}
		}
		hash, ours := want[key]
		if !ours && at != nil && places.movedFrom(key, tomlValue(at.value), keyOf) {
			to := keyOf[tomlValue(at.value)]
			if remove || tables[to] || found[to] {
				dropTable(s)
				continue
			}
			replace[s.start] = "[hooks.state." + tomlString(to) + "]" + lineEnd(lines[s.start])
			found[to] = true
			continue
		}
		if !ours {
			continue
		}
		found[key] = true
		if remove {
			dropTable(s)
			continue
		}
		switch {
		case at == nil:
			insert[s.start] = trustLine(hash, lineEnd(lines[s.start]))
		case tomlValue(at.value) != hash:
			replace[at.line] = trustLine(hash, lineEnd(lines[at.line]))
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if drop[i] {
			continue
		}
		if r, ok := replace[i]; ok {
			l = r
		}
		b.WriteString(l)
		if ins, ok := insert[i]; ok {
			if !strings.HasSuffix(l, "\n") {
				b.WriteString(lineEnd(l))
			}
			b.WriteString(ins)
		}
	}
	if !remove {
		end := fileEnd(lines)
		for _, h := range hooks {
			if found[h.Key] {
				continue
			}
			found[h.Key] = true
			out := b.String()
			if out != "" {
				if !strings.HasSuffix(out, "\n") {
					b.WriteString(end)
				}
				b.WriteString(end)
			}
			b.WriteString("[hooks.state." + tomlString(h.Key) + "]" + end + trustLine(h.Hash, end))
		}
	}
	return []byte(b.String()), nil
}
