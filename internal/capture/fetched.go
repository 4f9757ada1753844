package capture

import (
	"path/filepath"
	"strings"

	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/memory"
)

// fetchedRefs returns the memory entries a shell command fetched through
// mem itself: the ids `mem get` was given, and the entries `mem search` and
// `mem timeline` listed (an index line starts with its ref: "#12 ...",
// "S3 ..."; with --json, each hit has its "ref"). output is what the
// command printed. The listed refs are read only when mem alone printed
// the output: a command chained with one that prints something else (cat,
// echo, a test run) would let that text name any entry as fetched.
func fetchedRefs(cmd, output string) []string {
	var refs []string
	seen := map[string]bool{}
	add := func(r string) {
		if !seen[r] {
			seen[r] = true
			refs = append(refs, r)
		}
	}
	listed, others := false, false
	for _, seg := range shellSegments(cmd) {
		words := shellWords(seg)
		sub, args := memCall(words)
		if sub == "" && !printsNothingElse(words) {
			others = true
		}
		switch sub {
		case "get":
			for _, a := range args {
				if r, ok := memory.ParseEntryRef(a); ok {
					add(r)
				}
			}
		case "search", "timeline":
			listed = true
		}
	}
	if listed && !others {
		for _, re := range []*lazy.Regexp{indexRef, jsonRef} {
			for _, m := range re.Get().FindAllStringSubmatch(output, -1) {
				if r, ok := memory.ParseEntryRef(m[1]); ok {
					add(r)
				}
			}
		}
	}
	return refs
}

// jsonRef is the ref of a hit as --json prints it ("ref": "#12"), read
// from the text even when the agent's tool cut it short. A quote escaped
// inside a title or snippet cannot start one.
var jsonRef = lazy.NewRegexp(`(?:^|[^\\])"ref":\s*"(#\d+|S\d+)"`)

// indexRef is the ref an index line of mem search or mem timeline starts
// with (Gemini CLI puts "Output: " before a command's first line).
var indexRef = lazy.NewRegexp(`(?m)^(?:Output:)?[ \t>]*(#\d+|S\d+)\s`)

// printsNothingElse reports whether a simple command that is not mem adds
// nothing of its own to what mem prints: none at all, cd, the file
// descriptor of a "2>&1", or head or tail reading what mem printed (flags
// and counts only, no file).
func printsNothingElse(words []string) bool {
	if len(words) == 0 {
		return true
	}
	switch words[0] {
	case "cd":
		return true
	case "head", "tail":
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") && strings.Trim(w, "0123456789") != "" {
				return false
			}
		}
		return true
	}
	return strings.Trim(words[0], "0123456789") == "" && len(words) == 1
}

// memCall reads a simple command's words as a call of mem: its subcommand
// (after the global flags) and the arguments after it, flags left out;
// sub is "" when the command is not mem.
func memCall(words []string) (sub string, args []string) {
	i := 0
	for i < len(words) && strings.Contains(words[i], "=") && !strings.HasPrefix(words[i], "-") {
		i++ // VAR=value before the command
	}
	if i >= len(words) || filepath.Base(words[i]) != "mem" {
		return "", nil
	}
	for i++; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--db" || w == "--project":
			i++
		case strings.HasPrefix(w, "-"):
		case sub == "":
			sub = w
		default:
			args = append(args, w)
		}
	}
	return sub, args
}
