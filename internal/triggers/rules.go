package triggers

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/memhq/mem/internal/fsafe"
)

// Rule is one rule file of the project: the globs that say which files it
// applies to and the text to give the agent.
type Rule struct {
	Path   string // relative to the project root, '/'-separated
	Format string // copilot, cursor or claude
	Always bool   // cursor's alwaysApply
	Globs  []Glob
	Body   string
}

// Applies reports whether the rule applies to rel (relative to the root).
func (r Rule) Applies(rel string) bool {
	if r.Always {
		return true
	}
	for _, g := range r.Globs {
		if g.Match(rel) {
			return true
		}
	}
	return false
}

// ruleFormat says where a rule format lives and which frontmatter key holds
// its globs.
type ruleFormat struct {
	dir, suffix, key, format string
}

func ruleFormats() []ruleFormat {
	return []ruleFormat{
		{".github/instructions", ".instructions.md", "applyTo", "copilot"},
		{".cursor/rules", ".mdc", "globs", "cursor"},
		{".claude/rules", ".md", "paths", "claude"},
	}
}

// maxRuleFiles bounds the walk of a project's rule folders.
const maxRuleFiles = 200

// LoadRules reads the project's rule files: .github/instructions/*.instructions.md
// (applyTo), .cursor/rules/*.mdc (globs, alwaysApply) and .claude/rules/*.md
// (paths), subfolders included. Files without globs (and not always applied)
// are left out: they do not say which files they concern. Only what lies
// inside the project is read: a rule folder that is (or sits under) a link
// leading out of root is not walked, links inside are not followed into
// folders, and a rule file that is a link out of root, a FIFO or a device
// is skipped.
func LoadRules(root string) []Rule {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	var out []Rule
	for _, f := range ruleFormats() {
		base, err := filepath.EvalSymlinks(filepath.Join(realRoot, filepath.FromSlash(f.dir)))
		if err != nil || !fsafe.Inside(realRoot, base) {
			continue
		}
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil || len(out) >= maxRuleFiles {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(d.Name(), f.suffix) {
				return nil
			}
			rel, err := filepath.Rel(realRoot, p)
			if err != nil {
				return nil
			}
			rel = filepath.ToSlash(rel)
			// The walk goes through real folders inside the root only, so a
			// file that is no link is inside (opening it costs no resolving);
			// a link is read only when its target is inside too.
			var text string
			if d.Type().IsRegular() {
				text, err = readHead(fsafe.Open(p))
			} else {
				text, err = readContextFile(realRoot, rel)
			}
			if err != nil {
				return nil
			}
			if r, ok := ParseRule(rel, f.format, text); ok {
				out = append(out, r)
			}
			return nil
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// ParseRule reads a rule file of format copilot, cursor or claude.
func ParseRule(rel, format, text string) (Rule, bool) {
	fm, body := frontmatter(text)
	r := Rule{Path: rel, Format: format, Body: strings.TrimSpace(body)}
	var key string
	for _, f := range ruleFormats() {
		if f.format == format {
			key = f.key
		}
	}
	if format == "cursor" {
		if b, err := strconv.ParseBool(scalar(fm["alwaysApply"])); err == nil && b {
			r.Always = true
		}
	}
	for _, p := range fm[key] {
		// applyTo and globs put several patterns in one comma-separated string.
		for _, s := range splitTopCommas(p) {
			if g, ok := ParseGlob(s); ok {
				r.Globs = append(r.Globs, g)
			}
		}
	}
	return r, r.Body != "" && (r.Always || len(r.Globs) > 0)
}

func scalar(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// frontmatter splits a leading "---" block from the body and reads its keys:
// "key: value", "key: [a, b]" and "key:" followed by "- item" lines. Values
// are unquoted. It is the small YAML subset rule files use.
func frontmatter(text string) (map[string][]string, string) {
	fm := map[string][]string{}
	text = strings.TrimPrefix(text, "\ufeff")
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return fm, text
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return fm, text
	}
	last := ""
	for _, l := range lines[1:end] {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasPrefix(t, "- ") && last != "" {
			fm[last] = append(fm[last], unquoteYAML(strings.TrimSpace(t[2:])))
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		last = strings.TrimSpace(k)
		v = strings.TrimSpace(v)
		switch {
		case v == "":
			fm[last] = nil
		case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"):
			for _, it := range splitTopCommas(v[1 : len(v)-1]) {
				fm[last] = append(fm[last], unquoteYAML(it))
			}
		default:
			fm[last] = []string{unquoteYAML(v)}
		}
	}
	return fm, strings.Join(lines[end+1:], "\n")
}

func unquoteYAML(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// splitTopCommas splits at commas outside braces, so "**/*.{ts,tsx}, docs/**"
// gives two patterns.
func splitTopCommas(s string) []string {
	var out []string
	level, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '[':
			level++
		case '}', ']':
			level--
		case ',':
			if level == 0 {
				out = append(out, strings.TrimSpace(unquoteYAML(s[start:i])))
				start = i + 1
			}
		}
	}
	out = append(out, strings.TrimSpace(unquoteYAML(s[start:])))
	return out
}
