package capture

import (
	"fmt"
	"slices"
	"strings"

	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/text"
)

const snippetLen = 70

// editObservation describes an in-place edit: the file and the first line
// that changed, before and after.
func editObservation(c Call, in map[string]any, w Where) (*memory.Observation, []string) {
	file := rel(clean(str(in, "file_path", "filePath", "path", "absolute_path", "notebook_path")), w)
	if file == "" {
		return nil, nil
	}
	type pair struct{ old, new string }
	var edits []pair
	if list, ok := in["edits"].([]any); ok { // MultiEdit
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				edits = append(edits, pair{clean(str(m, "old_string", "oldString")), clean(str(m, "new_string", "newString"))})
			}
		}
	}
	if len(edits) == 0 {
		old, nw := str(in, "old_string", "oldString", "old_str"), str(in, "new_string", "newString", "new_str", "new_source")
		if old == "" && nw == "" {
			// OpenCode gives a unified diff in the response metadata.
			old, nw = diffSides(str(decodeObject(metadataOf(c.Response)), "diff"))
		}
		edits = append(edits, pair{clean(old), clean(nw)})
	}
	if privacy.IsSecretFile(file) {
		clear(edits) // a key or credentials file: its path only
	}
	o := &memory.Observation{Type: memory.TypeChange, ToolName: c.Tool, FilesModified: []string{file}}
	gist := changeGist(edits[0].old, edits[0].new)
	if len(edits) > 1 {
		o.Title = fmt.Sprintf("Edited %s (%d edits)", file, len(edits))
	} else {
		o.Title = "Edited " + file
	}
	if gist != "" {
		o.Title += ": " + gist
	}
	var names, scopes, changed []string
	for _, e := range edits {
		ol, nl := changedSpan(e.old, e.new)
		changed = append(changed, strings.Join(ol, "\n"), strings.Join(nl, "\n"))
		before, after := firstChanged(ol, nl)
		if before != "" {
			o.Facts = append(o.Facts, "before: "+before)
		}
		if after != "" {
			o.Facts = append(o.Facts, "after: "+after)
		}
		names = append(names, changedNames(ol, nl)...)
		scopes = append(scopes, definedIn(e.old+"\n"+e.new)...)
	}
	if scopes = memory.CleanList(scopes); len(scopes) > 0 {
		scopes = scopes[:min(len(scopes), maxNames)]
		o.Facts = append(o.Facts, "in: "+strings.Join(scopes, ", "))
	}
	if names = memory.CleanList(names); len(names) > 0 {
		names = names[:min(len(names), maxNames)]
		o.Facts = append(o.Facts, "names: "+strings.Join(names, ", "))
	}
	o.Narrative = fmt.Sprintf("Changed %s with %s.", file, plural(len(edits), "edit"))
	return o, changed
}

// writtenText is the text an in-place edit wrote: its first edit's new
// string (a secret file's is never asked for: only lines are found with it).
func writtenText(in map[string]any) string {
	if list, ok := in["edits"].([]any); ok && len(list) > 0 {
		if m, ok := list[0].(map[string]any); ok {
			return str(m, "new_string", "newString")
		}
	}
	return str(in, "new_string", "newString", "new_str", "new_source")
}

// metadataOf returns the metadata object of an OpenCode tool output.
func metadataOf(resp []byte) []byte {
	var m struct {
		Metadata jsonRaw `json:"metadata"`
	}
	_ = jsonUnmarshal(resp, &m)
	return m.Metadata
}

// writeObservation describes a whole-file write: created or rewritten, its
// size and the names it declares.
func writeObservation(c Call, in map[string]any, w Where) *memory.Observation {
	file := rel(clean(str(in, "file_path", "filePath", "path", "absolute_path")), w)
	if file == "" {
		return nil
	}
	raw := str(in, "content", "file_text", "text")
	content := clean(raw)
	if privacy.IsSecretFile(file) {
		content = "" // a key or credentials file: its path and size only
	}
	verb := "Wrote"
	switch strings.ToLower(str(decodeObject(c.Response), "type")) {
	case "create":
		verb = memory.CreatedVerb
	case "update":
		verb = "Rewrote"
	}
	lines := 0
	if raw != "" {
		lines = strings.Count(strings.TrimRight(raw, "\n"), "\n") + 1
	}
	o := &memory.Observation{Type: memory.TypeChange, ToolName: c.Tool, FilesModified: []string{file}}
	o.Title = fmt.Sprintf("%s %s (%s)", verb, file, plural(lines, "line"))
	names := declarations(content)
	if len(names) > 0 {
		o.Title += ": " + strings.Join(names, ", ")
		o.Facts = append(o.Facts, "declares: "+strings.Join(names, ", "))
	}
	o.Narrative = fmt.Sprintf("%s %s with %s.", verb, file, plural(lines, "line"))
	return o
}

// patchObservation describes an apply_patch call (Codex's patch format) or a
// unified diff: the files it touched and the first line it changed.
func patchObservation(c Call, in map[string]any, w Where) (*memory.Observation, []string) {
	patch := clean(str(in, "command", "patch", "input", "patchText", "diff"))
	if patch == "" {
		if s := rawString(c.Input); s != "" {
			patch = clean(s)
		}
	}
	var files []string
	var ops []string
	for _, l := range strings.Split(patch, "\n") {
		for _, p := range []struct{ prefix, op string }{
			{"*** Update File: ", "updated"}, {"*** Add File: ", "added"}, {"*** Delete File: ", "deleted"},
			{"*** Move to: ", "moved to"}, {"+++ b/", "updated"},
		} {
			if rest, ok := strings.CutPrefix(l, p.prefix); ok {
				f := rel(strings.TrimSpace(rest), w)
				files = append(files, f)
				ops = append(ops, p.op+" "+f)
			}
		}
	}
	files = memory.CleanList(files)
	if len(files) == 0 {
		return nil, nil
	}
	old, nw := diffSides(patch)
	if slices.ContainsFunc(files, privacy.IsSecretFile) {
		old, nw = "", "" // a key or credentials file among them: paths only
	}
	gist := changeGist(old, nw)
	o := &memory.Observation{Type: memory.TypeChange, ToolName: c.Tool, FilesModified: files}
	if len(files) == 1 {
		o.Title = "Patched " + files[0]
	} else {
		o.Title = fmt.Sprintf("Patched %d files: %s", len(files), strings.Join(files[:min(len(files), 4)], ", "))
	}
	if gist != "" {
		o.Title += ": " + gist
	}
	o.Facts = memory.CleanList(ops)
	if before, after := changedLines(old, nw); before != "" || after != "" {
		if before != "" {
			o.Facts = append(o.Facts, "before: "+before)
		}
		if after != "" {
			o.Facts = append(o.Facts, "after: "+after)
		}
	}
	o.Narrative = "Applied a patch to " + strings.Join(files, ", ") + "."
	return o, nil // it keeps the first changed line only: what it holds is checked
}

// diffSides splits a diff into its removed and added lines.
func diffSides(diff string) (old, nw string) {
	var o, n []string
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "***"):
		case strings.HasPrefix(l, "-"):
			o = append(o, l[1:])
		case strings.HasPrefix(l, "+"):
			n = append(n, l[1:])
		}
	}
	return strings.Join(o, "\n"), strings.Join(n, "\n")
}

// changedSpan returns the non-blank lines of each side that differ, once
// the lines both sides share at the start and end are set aside.
func changedSpan(old, nw string) (ol, nl []string) {
	ol, nl = nonBlank(old), nonBlank(nw)
	for len(ol) > 0 && len(nl) > 0 && ol[0] == nl[0] {
		ol, nl = ol[1:], nl[1:]
	}
	for len(ol) > 0 && len(nl) > 0 && ol[len(ol)-1] == nl[len(nl)-1] {
		ol, nl = ol[:len(ol)-1], nl[:len(nl)-1]
	}
	return ol, nl
}

// changedLines returns the first line that differs on each side, once the
// lines both sides share at the start and end are set aside.
func changedLines(old, nw string) (before, after string) {
	return firstChanged(changedSpan(old, nw))
}

// firstChanged returns the first line of each side of a changed span
// (changedSpan), shortened.
func firstChanged(ol, nl []string) (before, after string) {
	if len(ol) > 0 {
		before = text.Cut(ol[0], snippetLen)
	}
	if len(nl) > 0 {
		after = text.Cut(nl[0], snippetLen)
	}
	return before, after
}

// maxNames bounds the names an edit observation keeps.
const maxNames = 16

var (
	identRe = lazy.NewRegexp(`[A-Za-z_][A-Za-z0-9_]*`)
	// A C-family or Go definition at the start of a line: `static int
	// foo(`, `func (r *T) foo(`, `void *foo(`.
	defRe = lazy.NewRegexp(`(?m)^(?:[A-Za-z_][A-Za-z0-9_]*[\s\*]+)+\**([A-Za-z_][A-Za-z0-9_]*)\s*\(|^func\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)`)
)

// changedNames returns the identifiers of the lines an edit changed (its
// changed span, all of it, not only the first line), in order: what a
// developer searches for later. Words of three letters or fewer and the
// language's keywords are left out.
func changedNames(ol, nl []string) []string {
	var out []string
	for _, l := range slices.Concat(ol, nl) {
		for _, w := range identRe.Get().FindAllString(l, -1) {
			if len(w) > 3 && !isKeyword(w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// definedIn returns the functions an edit's text defines or sits in (the
// definitions its context shows).
func definedIn(src string) []string {
	var out []string
	for _, m := range defRe.Get().FindAllStringSubmatch(src, -1) {
		if n := m[1] + m[2]; !isKeyword(n) {
			out = append(out, n)
		}
	}
	return out
}

// isKeyword reports whether w is a keyword of a common language: it names
// nothing.
func isKeyword(w string) bool {
	switch w {
	case "return", "static", "const", "struct", "union", "enum", "void", "else", "while", "switch", "case",
		"break", "continue", "goto", "sizeof", "unsigned", "signed", "long", "short", "char", "bool", "true",
		"false", "NULL", "nil", "null", "func", "type", "range", "default", "inline", "extern", "typedef",
		"define", "include", "ifdef", "ifndef", "endif", "elif", "undef", "self", "this", "import", "from",
		"package", "public", "private", "class", "def", "var", "let", "uint", "float", "double", "string",
		"defer", "select", "interface", "async", "await":
		return true
	}
	return false
}

// changeGist says in a few words what an edit changed.
func changeGist(old, nw string) string {
	before, after := changedLines(old, nw)
	switch {
	case before != "" && after != "":
		return before + " → " + after
	case after != "":
		return "added " + after
	case before != "":
		return "removed " + before
	}
	return ""
}

func nonBlank(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

var declRe = lazy.NewRegexp(`(?m)^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\(crate\))?\s+)?(?:async\s+)?(?:func|def|class|type|interface|struct|enum|trait|fn|function)\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)`)

// declarations returns up to five names a source file declares.
func declarations(src string) []string {
	var out []string
	for _, m := range declRe.Get().FindAllStringSubmatch(src, -1) {
		out = append(out, m[1])
	}
	out = memory.CleanList(out)
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
