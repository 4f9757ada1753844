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
// "S3 ..."). output is what the command printed.
func fetchedRefs(cmd, output string) []string {
	var refs []string
	seen := map[string]bool{}
	add := func(r string) {
		if !seen[r] {
			seen[r] = true
			refs = append(refs, r)
		}
	}
	listed := false
	for _, seg := range shellSegments(cmd) {
		sub, args := memCall(shellWords(seg))
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
	if listed {
		for _, m := range indexRef.Get().FindAllStringSubmatch(output, -1) {
			if r, ok := memory.ParseEntryRef(m[1]); ok {
				add(r)
			}
		}
	}
	return refs
}

// indexRef is the ref an index line of mem search or mem timeline starts
// with (Gemini CLI puts "Output: " before a command's first line).
var indexRef = lazy.NewRegexp(`(?m)^(?:Output:)?[ \t>]*(#\d+|S\d+)\s`)

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
