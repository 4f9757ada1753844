// Package guard is the instruction check: it finds text shaped like an
// instruction to the assistant, whatever its source, so that memory never
// carries an instruction from one conversation into the next. A tool's
// output, a fetched page, a file or a saved note that says "ignore previous
// instructions", "from now on always ...", "ASSISTANT, you must ...", pipes
// a download into a shell, forges a role or system tag, asks for files or
// secrets to be sent somewhere, or hides text in invisible or bidirectional
// characters is flagged, with the rule and the span it matched. The user's
// own prompts are the user speaking and are never checked.
package guard

import (
	"strings"
	"unicode/utf8"

	"github.com/memhq/mem/internal/lazy"
	txt "github.com/memhq/mem/internal/text" // Check's argument is named text
)

// Finding is what the check found in a text: the rule that matched and
// the text it matched (Span, at most maxSpan bytes).
type Finding struct {
	Rule string `json:"rule"`
	Span string `json:"span"`
}

// Rules.
const (
	RuleOverride  = "override"        // ignore / disregard previous instructions
	RulePersist   = "persistent"      // from now on, in all future sessions, remember this rule
	RuleAddressed = "addressed"       // an imperative aimed at the assistant
	RuleInstaller = "piped-installer" // curl ... | sh
	RuleRoleTag   = "role-tag"        // <system>, <|im_start|>, [INST], Human: / Assistant: turns
	RuleExfil     = "exfiltration"    // send files, secrets or history somewhere
	RuleHidden    = "hidden-text"     // invisible or bidirectional characters
)

// maxSpan bounds the span kept with a flag.
const maxSpan = 160

// rule is one pattern and the keywords (lower case) one of which each of
// its matches holds; the pattern runs only around them. A rule's kinds of
// match are separate patterns with their own keywords: small patterns on
// short windows are what Go's regular expressions run fastest, anchored
// ones fastest of all.
type rule struct {
	name     string
	keywords []string
	// at says every match starts at a keyword: the pattern is anchored
	// there (it begins with ^) and fails at once where it does not match.
	at bool
	re *lazy.Regexp
}

// Parts of the patterns.
const (
	// addressee names the assistant: the words a text uses to speak to it.
	addressee = `(?:(?:(?:ai|coding|language)\s+)?(?:assistant|agent|model|bot|llm)s?|ai|claude|copilot|codex|gemini|chatgpt|gpt(?:-\d\S*)?)`
	// youMust is an obligation put on the reader.
	youMust = `\byou\s+(?:must|should|need\s+to|have\s+to|are\s+(?:required|instructed)\s+to)\s+(?:now\s+|always\s+|never\s+|immediately\s+)?`
	// secretThing is what an exfiltration asks for.
	secretThing = `(?:contents?\s+of\s+\S+|\.env\b|env(?:ironment)?\s+(?:variables?|vars|file)|secrets?|credentials?|passwords?|api[-_ ]?keys?|access\s+keys?|private\s+keys?|ssh\s+keys?|tokens?|~/\.ssh\S*|id_rsa\S*|\.aws\S*|aws\s+credentials|session\s+cookies?|cookies|conversation(?:\s+history)?|chat\s+history|history|source\s+code|codebase|repository|repo|files?|system\s+prompt|memory|memories)\b`
	// elsewhere is a destination outside the machine.
	elsewhere = `(?:to|at|into|via|using|on)\s+(?:https?://|ftp://|\S+@\S+\.\S+|(?:the|this|that|my|our|a)\s+(?:following\s+|external\s+|remote\s+)?(?:url|address|server|endpoint|webhook|email|inbox|bucket|pastebin|gist|host|domain|link|site)\b|\S+\.(?:com|net|org|io|xyz|ru|cn|site|top|app|dev)\b)`
	// secretFile is a file that holds keys or credentials.
	secretFile = `(?:~/\.ssh|\$home/\.ssh|/etc/passwd|/etc/shadow|\.env\b|~/\.aws|\$home/\.aws|id_rsa|\.git-credentials|\.netrc|\.npmrc|\.pypirc|\.aws/credentials)`
	// shell is a program that runs what it is given.
	shell = `(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|da|k|fi)?sh|python[0-9.]*|perl|ruby|node|iex|invoke-expression|pwsh|powershell)\b`
	// netSender is a program that sends what it is given over the network.
	netSender = `(?:curl|wget|nc|ncat|netcat|socat)\b`
)

// The patterns. Each runs on the text with its ASCII letters lower-cased
// (asciiLower keeps byte offsets), so it is written in lower case: (?i)
// costs several times as much. Each stays within a line, so a match is a
// span worth showing a person.
var rules = []rule{
	{RuleOverride, []string{"ignore", "disregard", "forget", "override", "bypass", "overrule"}, true,
		lazy.NewRegexp(`^(?:ignore|disregard|forget|override|bypass|overrule)\s+(?:all\s+|any\s+|the\s+|your\s+|these\s+|those\s+|my\s+)*` +
			`(?:previous|prior|above|earlier|preceding|former|original|existing|system|developer|safety)\s+` +
			`(?:instructions?|prompts?|rules|directions|guidelines|context|messages|constraints|guardrails|policies)`)},
	{RulePersist, []string{"from now on", "going forward", "henceforth"}, true,
		lazy.NewRegexp(`^(?:from\s+now\s+on|going\s+forward|henceforth)[,:]?\s+(?:you\s+|the\s+assistant\s+|claude\s+|please\s+)?` +
			`(?:always|never|must|should|run|use|do|don'?t|ignore|execute|push|commit|call|send|skip|disable|answer|respond|reply|treat|include|add|remember|install|curl|download|recommend|prefer|start|begin|prepend|append)\b`)},
	{RulePersist, []string{"future", "subsequent", "later"}, false,
		lazy.NewRegexp(`\b(?:in|for|across)\s+(?:all|every)\s+(?:future|subsequent|later)\s+(?:sessions?|conversations?|chats?|responses?|answers?|tasks?)`)},
	{RulePersist, []string{"future", "later", "subsequent", "memory"}, false,
		lazy.NewRegexp(`\b(?:remember|memori[sz]e|save|store|record|add|keep)\s+(?:this|these|that|the\s+following)\s+(?:rule|instruction|directive|fact|preference|policy)s?\b[^.\n]*?` +
			`(?:for|in|to|into|across)\s+(?:all\s+|every\s+)?(?:future|later|subsequent|(?:your\s+)?(?:long[- ]term\s+)?memory)`)},
	{RulePersist, []string{"trusted", "authoritative", "official", "reliable", "preferred"}, false,
		lazy.NewRegexp(`\b(?:remember|note|treat|consider|regard)\s+\S+(?:\s+\S+)?(?:\s+\S+)?(?:\s+\S+)?\s+as\s+(?:a|an|the)\s+(?:trusted|authoritative|official|reliable|preferred)\s+(?:source|site|vendor|reference|domain)`)},
	{RulePersist, []string{"after answering", "after responding", "after replying", "after each answer", "after every answer"}, true,
		lazy.NewRegexp(`^after\s+(?:answering|responding|replying|each\s+answer|every\s+answer)[,:]?\s+(?:always\s+)?(?:remember|save|store|run|send|append|add)\b`)},
	{RulePersist, []string{"whenever", "every time", "each time"}, true,
		lazy.NewRegexp(`^(?:whenever|every\s+time|each\s+time)\s+(?:the\s+)?user\s+(?:asks?|mentions?|says?|requests?)\b[^.\n]*?\b(?:always|instead|respond|answer|reply|tell|say|recommend|refer|redirect)\b`)},
	{RuleAddressed, []string{"assistant", "claude", "copilot", "codex", "gemini", "chatgpt", "gpt", "agent", "ai", "llm", "model", "bot"}, false,
		lazy.NewRegexp(`(?:(?m:^)|[.!?:;]\s|@|\b(?:hey|dear|hi|hello|attention)\s)[\s\-*#/>!]*(?:the\s+)?` + addressee + `\s*[,:!]\s*` +
			`(?:you\s+(?:must|should|need\s+to|have\s+to|are\s+(?:required|instructed)\s+to|will)|always|never|please|do\s+not|don'?t|ignore|run|execute|push|delete|remove|send|upload|disable|skip|stop|install|commit|merge)\b`)},
	{RuleAddressed, []string{"attention", "note", "important", "notice", "message", "instruction"}, true,
		lazy.NewRegexp(`^(?:attention|note|important|notice|message|instructions?)\s+(?:to|for)\s+(?:the\s+|all\s+|any\s+)?` + addressee + `\b`)},
	{RuleAddressed, []string{"you must", "you should", "you need", "you have to", "you are required", "you are instructed"}, true,
		lazy.NewRegexp(`^(?:` + youMust + `(?:push|force[- ]push|merge|commit)\b[^.\n]*?\b(?:directly\s+to|straight\s+to|into|to)\s+(?:main|master|production|prod|release)\b` +
			`|` + youMust + `(?:disable|skip|bypass|turn\s+off|remove|delete)\s+(?:all\s+|the\s+|every\s+)?(?:tests?|checks?|ci|reviews?|hooks?|safety|security|linters?|verification|signing|approvals?|branch\s+protection)\b)`)},
	{RuleAddressed, []string{"you will now", "you are now", "your new"}, true,
		lazy.NewRegexp(`^(?:you\s+will\s+now\s+(?:act|behave|respond|operate)\b|\byour\s+new\s+(?:instructions?|task|role|goal|objective|persona)\b` +
			`|\byou\s+are\s+now\s+(?:in\s+)?(?:developer|admin|god|jailbreak|unrestricted|dan)\b)`)},
	{RuleInstaller, []string{"curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod", "fetch"}, true,
		lazy.NewRegexp(`^(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch)\b[^|\n;]*\|\s*` + shell)},
	{RuleInstaller, []string{"curl", "wget"}, false,
		lazy.NewRegexp(`\b(?:ba|z)?sh\s+(?:-c\s+)?["']?\s*(?:<\(|\$\()\s*(?:curl|wget)\b`)},
	{RuleInstaller, []string{"iex", "invoke-expression"}, true,
		lazy.NewRegexp(`^(?:iex|invoke-expression)\s*\(?\s*\(?\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+net\.webclient)`)},
	{RuleRoleTag, []string{"<system", "</system", "<instruction", "</instruction", "<important", "</important", "<assistant", "</assistant",
		"<human", "</human", "<im_", "</im_", "<tool", "</tool", "<function", "</function"}, true,
		lazy.NewRegexp(`^</?(?:system|system[-_ ]?(?:prompt|message|reminder|instructions?|override)|instructions?|important[-_ ]?instructions?|assistant|human|im_start|im_end|tool[-_]?(?:call|result)s?|function[-_]?(?:call|result)s?)\s*>`)},
	{RuleRoleTag, []string{"<|", "[inst", "[/inst", "<<sys", "<</sys", "<memory_context", "</memory_context", "<mem_context", "</mem_context"}, true,
		lazy.NewRegexp(`^(?:<\|\s*(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\s*\|>` +
			`|\[/?inst\]|<</?sys>>|</?(?:memory_context|mem_context)\b)`)},
	{RuleRoleTag, []string{"human", "assistant", "developer", "system"}, false,
		lazy.NewRegexp(`(?m:^\s*(?:#{1,4}\s*)?(?:human|assistant|developer)\s*:\s*\S)` +
			`|(?m:^\s*(?:#{1,4}\s*)?system\s*(?:prompt|message|override|instructions?)?\s*:\s*(?:you\b|ignore|from\s+now|always|never|new\s+(?:rules|instructions)|the\s+(?:assistant|ai|model)))`)},
	{RuleExfil, []string{"send", "post", "upload", "exfiltrate", "forward", "email", "e-mail", "transmit", "leak", "share", "copy", "paste", "report"}, true,
		lazy.NewRegexp(`^(?:send|post|upload|exfiltrate|forward|e-?mail|transmit|leak|share|copy|paste|report)\s+(?:me\s+)?(?:all\s+|the\s+|your\s+|any\s+|every\s+|my\s+|their\s+|its\s+)*` +
			secretThing + `[^.\n]*?\b` + elsewhere)},
	{RuleExfil, []string{"id_rsa", ".ssh", ".env", ".aws", "/etc/passwd", "/etc/shadow", ".netrc", ".npmrc", ".pypirc", ".git-credentials", "$(cat", "$(env", "$(printenv"}, false,
		lazy.NewRegexp(`\b(?:curl|wget|http|httpie|xh)\b[^\n]*?(?:-d|--data(?:-binary|-raw|-urlencode)?|-f|--form|-t|--upload-file|--post-file|--body-file)\s*[= ]?\s*["']?(?:[a-z_]+=)?@?(?:` + secretFile + `|\$\(\s*(?:cat|env|printenv))` +
			`|\b(?:cat|tar|zip|base64)\b[^|\n]*` + secretFile + `[^|\n]*\|\s*` + netSender)},
	{RuleExfil, []string{"printenv", "env", "set"}, true,
		lazy.NewRegexp(`^(?:printenv|env|set)\s*\|\s*` + netSender)},
	{RuleExfil, []string{"| nc", "|nc", "| ncat", "|ncat", "| netcat", "|netcat", "| socat", "|socat"}, true,
		lazy.NewRegexp(`^\|\s*(?:nc|ncat|netcat|socat)\s+(?:-\S+\s+)*[a-z0-9.-]+\.[a-z]{2,}\s+\d{2,5}`)},
}

// Check reports the first instruction-shaped span of text, if any.
//
// A rule's pattern runs only on the lines around its keywords (at most
// window bytes either side, windows that touch joined), never on the whole
// text: Go's regular expressions cost about a third of a microsecond a byte
// on patterns this size, and most text holds no keyword at all.
func Check(text string) (Finding, bool) {
	if text == "" {
		return Finding{}, false
	}
	if f, ok := hidden(text); ok {
		return f, true
	}
	lower := txt.ASCIILower(text) // byte for byte: its indexes are text's
	seen := starts(lower)
	var spans []int
	for i := range rules {
		r := &rules[i]
		spans = windows(text, lower, seen, r.keywords, r.at, spans[:0])
		for j := 0; j < len(spans); j += 2 {
			w := lower[spans[j]:spans[j+1]]
			if loc := r.re.Get().FindStringIndex(w); loc != nil {
				return Finding{Rule: r.name, Span: span(text, spans[j]+loc[0], spans[j]+loc[1])}, true
			}
		}
	}
	return Finding{}, false
}

// CheckAll checks each text in turn and reports the first finding.
func CheckAll(texts ...string) (Finding, bool) {
	for _, t := range texts {
		if f, ok := Check(t); ok {
			return f, true
		}
	}
	return Finding{}, false
}

// window bounds how far from a keyword a rule's match may reach.
const window = 320

// windows appends to out the [start, end) pairs of text to search: around
// each whole-word occurrence of a keyword (a keyword of three letters or
// fewer must be a whole word; a longer one must start one), the keyword's
// line, cut at window bytes either side, overlapping windows joined; with
// at, from the keyword to the end of its line (window bytes at most), one
// window per occurrence.
func windows(text, lower string, seen uint64, keywords []string, at bool, out []int) []int {
	start := len(out)
	for _, k := range keywords {
		if seen&pairBit(k[0], k[1]) == 0 {
			continue
		}
		for from := 0; from < len(lower); {
			i := strings.Index(lower[from:], k)
			if i < 0 {
				break
			}
			i += from
			from = i + len(k)
			if !wordAt(lower, i, len(k)) {
				continue
			}
			ws := i
			if !at {
				ws = max(0, i-window)
				if nl := strings.LastIndexByte(text[ws:i], '\n'); nl >= 0 {
					ws += nl + 1
				}
			}
			we := min(len(text), i+len(k)+window)
			if nl := strings.IndexByte(text[i:we], '\n'); nl >= 0 {
				we = i + nl
			}
			out = append(out, ws, we)
		}
	}
	pairs := out[start:]
	if at || len(pairs) <= 2 {
		return out
	}
	// Sort the pairs by start (few: insertion sort), then join.
	for i := 2; i < len(pairs); i += 2 {
		for j := i; j >= 2 && pairs[j] < pairs[j-2]; j -= 2 {
			pairs[j], pairs[j+1], pairs[j-2], pairs[j-1] = pairs[j-2], pairs[j-1], pairs[j], pairs[j+1]
		}
	}
	n := 2
	for i := 2; i < len(pairs); i += 2 {
		if pairs[i] <= pairs[n-1] {
			pairs[n-1] = max(pairs[n-1], pairs[i+1])
			continue
		}
		pairs[n], pairs[n+1] = pairs[i], pairs[i+1]
		n += 2
	}
	return out[:start+n]
}

// starts is a set (64 bits) of the first two bytes at every place a
// keyword can start: a word's start, or a byte that is not a letter. A
// keyword whose first two bytes are not in it is not in the text: one pass
// rules out most keywords before any search.
func starts(lower string) uint64 {
	var set uint64
	for i := 0; i+1 < len(lower); i++ {
		c := lower[i]
		if isWordByte(c) && i > 0 && isWordByte(lower[i-1]) {
			continue
		}
		set |= pairBit(c, lower[i+1])
	}
	return set
}

func pairBit(a, b byte) uint64 { return 1 << ((uint(a)*31 + uint(b)) & 63) }

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' }

// wordAt reports whether the keyword at lower[i:i+n] starts a word, and,
// for a short keyword that is letters, ends one too ("ai" is not "main").
func wordAt(lower string, i, n int) bool {
	letter := isWordByte
	if i > 0 && letter(lower[i]) && letter(lower[i-1]) {
		return false
	}
	if n <= 3 && i+n < len(lower) && letter(lower[i+n-1]) && letter(lower[i+n]) {
		return false
	}
	return true
}

// hidden finds invisible or bidirectional characters: zero-width spaces and
// joiners, bidirectional marks, embeddings, overrides and isolates, word
// joiners and invisible operators, a byte order mark inside the text, and
// Unicode tag characters (which spell hidden ASCII). A text that is all
// ASCII costs one scan.
func hidden(s string) (Finding, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if invisible(r) && !(r == '\ufeff' && i == 0) {
			end := i + n
			for end < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[end:])
				if !invisible(r2) {
					break
				}
				end += n2
			}
			return Finding{Rule: RuleHidden, Span: span(s, i, end)}, true
		}
		i += n - 1
	}
	return Finding{}, false
}

func invisible(r rune) bool {
	switch {
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2064,
		r >= 0x2066 && r <= 0x2069, r == 0xfeff, r == 0x061c, r == 0x180e, r == 0x00ad,
		r >= 0xe0000 && r <= 0xe007f, r >= 0xfff9 && r <= 0xfffb:
		return true
	}
	return false
}

// span returns text[start:end] widened to whole characters and cut to
// maxSpan bytes, with a little context when the match is short, so a person
// sees what was matched.
func span(text string, start, end int) string {
	if end-start < 40 {
		start = max(0, start-20)
		end = min(len(text), end+20)
	}
	if end-start > maxSpan {
		end = start + maxSpan
	}
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	return strings.TrimSpace(text[start:end])
}
