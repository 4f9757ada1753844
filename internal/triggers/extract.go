// Package triggers turns what happens in a session into pending context: the
// user's prompt (code symbols, file paths and questions become searches over
// the project's memory; configured keywords bring their text) and the agent's
// tool events (a touched file brings what memory knows about it, its
// directories' AGENTS.md and README.md, and the rule files whose globs match it).
package triggers

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/text"
)

// Kinds of trigger found in a prompt.
const (
	KindSymbol   = "symbol"
	KindPath     = "path"
	KindQuestion = "question"
)

// Trigger is one thing in a prompt worth looking up in memory.
type Trigger struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Key identifies a trigger across prompts ("symbol:OrderService").
func (t Trigger) Key() string { return t.Kind + ":" + t.Text }

// ParseKey reads a Key back; ok is false for anything else.
func ParseKey(k string) (Trigger, bool) {
	kind, text, ok := strings.Cut(k, ":")
	if !ok || text == "" || (kind != KindSymbol && kind != KindPath && kind != KindQuestion) {
		return Trigger{}, false
	}
	return Trigger{Kind: kind, Text: text}, true
}

// MaxTriggers bounds the triggers taken from one prompt: each costs a search.
const MaxTriggers = 8

// Extract returns the triggers of a prompt, in order of appearance, each
// once: questions ("how does X work", "what is X", ...), file paths and code
// symbols (PascalCase, camelCase, snake_case), minus common words that look
// like symbols (GitHub, JavaScript, ...). Symbols inside a found path or
// question are not repeated on their own.
func Extract(prompt string) []Trigger {
	if len(prompt) > 16<<10 {
		prompt = prompt[:16<<10]
	}
	var out []Trigger
	seen := map[string]bool{}
	add := func(t Trigger) {
		k := strings.ToLower(t.Key())
		if t.Text == "" || seen[k] || len(out) >= MaxTriggers {
			return
		}
		seen[k] = true
		out = append(out, t)
	}
	covered := map[string]bool{} // words already inside a question or path
	for _, q := range questions(prompt) {
		add(Trigger{Kind: KindQuestion, Text: q})
	}
	words := splitWords(prompt)
	for _, w := range words {
		if p, ok := asPath(w); ok {
			add(Trigger{Kind: KindPath, Text: p})
			for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '.' }) {
				covered[part] = true
			}
		}
	}
	for _, w := range words {
		if _, ok := asPath(w); ok {
			continue
		}
		for _, s := range symbols(w) {
			if !covered[s] {
				add(Trigger{Kind: KindSymbol, Text: s})
			}
		}
	}
	return out
}

// splitWords splits at white space and strips the quotes, brackets and
// sentence punctuation around each word.
func splitWords(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, "`'\"()[]{}<>,;:!?*")
		w = strings.TrimRight(w, ".")
		w = strings.Trim(w, "`'\"()[]{}<>,;:!?*")
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

var (
	pathExt   = lazy.NewRegexp(`^[\w@~.-]*[\w-]\.(go|mod|sum|ts|tsx|js|jsx|mjs|cjs|py|rb|rs|java|kt|kts|swift|c|h|cc|cpp|hpp|cs|php|scala|sql|sh|bash|zsh|ps1|yaml|yml|json|jsonl|toml|ini|cfg|conf|env|md|mdx|txt|rst|html|css|scss|vue|svelte|proto|graphql|tf|lua|ex|exs|erl|dart|zig|nix|lock|xml|gradle|mk|dockerfile)$`)
	pathChars = lazy.NewRegexp(`^[\w@~./+-]+$`)
)

// asPath reports whether w looks like a file path: it has a directory part
// ("internal/orders/refund.go", "./cmd/mem") or a known file extension
// ("refund.go", "Makefile" is not). URLs, bare fractions and slash commands
// ("/help") are not paths.
func asPath(w string) (string, bool) {
	if strings.Contains(w, "://") || !pathChars.Get().MatchString(w) || len(w) > 300 {
		return "", false
	}
	w = strings.TrimPrefix(w, "./")
	if w == "" {
		return "", false
	}
	base := w
	if i := strings.LastIndex(w, "/"); i >= 0 {
		base = w[i+1:]
	}
	if pathExt.Get().MatchString(strings.ToLower(base)) {
		return w, true
	}
	if !strings.Contains(w, "/") {
		return "", false
	}
	// A slash alone is not enough ("and/or", "1/2", "input/output"): ask for
	// at least two separators, a leading dot, tilde or slash, or a trailing slash.
	hasLetter := strings.IndexFunc(w, unicode.IsLetter) >= 0
	if !hasLetter {
		return "", false
	}
	// "/help", "/review": one segment after a leading slash is how slash
	// commands look, not a file.
	if strings.HasPrefix(w, "/") && !strings.Contains(w[1:], "/") {
		return "", false
	}
	if strings.Count(strings.Trim(w, "/"), "/") >= 2 || strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~/") ||
		strings.HasPrefix(w, ".") || strings.HasSuffix(w, "/") {
		return strings.TrimSuffix(w, "/"), true
	}
	return "", false
}

// symbols returns the code identifiers in a word: the word itself, or the
// parts of a dotted or called name ("cfg.Refund.MaxRetries" gives
// MaxRetries; "parseDSN()" gives parseDSN).
func symbols(w string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(w, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
	}) {
		part = strings.Trim(part, "_")
		if isSymbol(part) && !commonWord(part) {
			out = append(out, part)
		}
	}
	return out
}

// isSymbol: PascalCase with two humps or more (OrderService, HTTPServer),
// camelCase (parseDSN, maxRetries) or snake_case (retry_policy, MAX_RETRIES).
func isSymbol(w string) bool {
	if utf8.RuneCountInString(w) < 3 || len(w) > 100 {
		return false
	}
	rs := []rune(w)
	if !unicode.IsLetter(rs[0]) {
		return false
	}
	if strings.Contains(w, "_") {
		letters := 0
		for _, p := range strings.Split(w, "_") {
			if p != "" && strings.IndexFunc(p, unicode.IsLetter) >= 0 {
				letters++
			}
		}
		return letters >= 2
	}
	lowerToUpper := false
	acronymToWord := false
	hasLower := false
	for i := 1; i < len(rs); i++ {
		if unicode.IsLower(rs[i]) {
			hasLower = true
		}
		if unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i]) {
			lowerToUpper = true
		}
		if i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i+1]) {
			acronymToWord = true
		}
	}
	return hasLower && (lowerToUpper || acronymToWord)
}

// commonWord lists words that are shaped like identifiers but are names of
// products, languages and companies people mention in prose.
func commonWord(w string) bool {
	switch strings.ToLower(w) {
	case "javascript", "typescript", "github", "gitlab", "bitbucket", "postgresql", "mysql", "sqlite", "mongodb",
		"openai", "chatgpt", "youtube", "linkedin", "iphone", "ipad", "macos", "ios", "iot", "devops", "graphql",
		"webassembly", "powershell", "vscode", "intellij", "jetbrains", "nodejs", "nextjs", "dynamodb", "redis",
		"openapi", "oauth", "websocket", "websockets", "pytorch", "tensorflow", "numpy", "fastapi", "laravel",
		"wordpress", "paypal", "cloudflare", "kubernetes", "mcp", "claude", "codex", "gemini", "opencode",
		"anthropic", "deepseek", "huggingface", "dockerfile", "makefile", "readme", "todo", "fixme", "e_g", "i_e",
		"ok", "okay", "pr", "prs", "wip", "lgtm", "tl_dr", "tldr":
		return true
	}
	return false
}

// questionRe finds "how does X work", "what is X", "what did we decide
// about X", "where is X", "why does X", "explain X" and the like; X runs to
// the end of the clause.
var questionRe = lazy.NewRegexp(`(?i)\b(?:how\s+(?:does|do|did|is|are|can|should|would)|what\s+(?:is|are|was|were|does|do)|what's|where\s+(?:is|are|does|do)|where's|why\s+(?:does|do|did|is|are)|when\s+(?:does|do|did|is)|what\s+did\s+we\s+(?:decide|agree|choose|learn|find|say|do)\s+(?:about|on|for|with)|explain|tell\s+me\s+about|remind\s+me\s+(?:about|of|how|what|why))\s+([^?!;\n,]+)`)

// requestRe finds the questions that ask the agent to do something rather
// than ask about something.
var requestRe = lazy.NewRegexp(`(?i)^\s*(?:(?:can|could|would|will)\s+(?:you|we)|please|shall\s+we|why\s+not|what\s+if)\b`)

// asked returns up to n sentences of s that end in a question mark, without
// it. A sentence ends at ? ! ; a line break, or a full stop before a space
// (cfg.Refund.MaxRetries is one word).
func asked(s string, n int) []string {
	var out []string
	start := 0
	for i := 0; i < len(s) && len(out) < n; i++ {
		switch c := s[i]; {
		case c == '?':
			if q := strings.TrimSpace(s[start:i]); q != "" {
				out = append(out, q)
			}
			start = i + 1
		case c == '!' || c == ';' || c == '\n' || c == '.' && (i+1 == len(s) || s[i+1] == ' '):
			start = i + 1
		}
	}
	return out
}

// questions returns the subjects of a prompt's questions: those questionRe
// finds, then any other sentence that ends in a question mark ("Would
// Caroline pursue writing as a career?"), requests excepted ("can you ...").
func questions(prompt string) []string {
	var out []string
	for _, m := range questionRe.Get().FindAllStringSubmatch(prompt, 4) {
		out = appendSubject(out, m[1])
	}
	for _, q := range asked(prompt, 4) {
		if !questionRe.Get().MatchString(q) && !requestRe.Get().MatchString(q) {
			out = appendSubject(out, q)
		}
	}
	return out
}

// appendSubject appends the subject of a question's clause: its words up
// to the first sentence end, noise words left out, at most maxSubjectWords.
func appendSubject(out []string, clause string) []string {
	clause, _, _ = strings.Cut(clause+" ", ". ")
	var words []string
	for _, w := range strings.Fields(clause) {
		// Noise words go: search ignores them too, and they would use up
		// the words a subject keeps.
		if w = strings.TrimRight(strings.Trim(w, "`'\"()[]"), "."); w != "" && !text.IsNoise(strings.ToLower(w)) {
			words = append(words, w)
		}
	}
	if len(words) > maxSubjectWords {
		words = words[:maxSubjectWords]
	}
	if subject := strings.Join(words, " "); utf8.RuneCountInString(subject) >= 3 {
		out = append(out, subject)
	}
	return out
}

// maxSubjectWords bounds the words a question's subject keeps.
const maxSubjectWords = 6
