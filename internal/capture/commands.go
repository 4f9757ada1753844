package capture

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/text"
)

type jsonRaw = json.RawMessage

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// rawString returns raw as a JSON string, or "".
func rawString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

// Concepts tagging command observations, so a later passing check can find
// the failure it resolves.
const (
	ConceptCommandFailed = "command-failed"
	ConceptCheck         = "check"
)

// output is what a command printed and how it ended, as far as the agent says.
type output struct {
	text        string // stdout and stderr (stderr first: errors live there)
	exitCode    *int
	interrupted bool
}

var exitLine = lazy.NewRegexp(`(?mi)^\s*(?:exit code|exit status|exited with code)[:\s]+(-?\d+)\s*$`)

// commandOutput reads the response shapes of Claude Code ({stdout, stderr,
// interrupted}), Gemini ({llmContent, returnDisplay} with an "Exit Code:"
// line), Codex (a string, or {output, exit_code}) and OpenCode ({output,
// metadata: {exit}}).
func commandOutput(c Call) output {
	var out output
	if s := rawString(c.Response); s != "" {
		out.text = s
	} else {
		m := decodeObject(c.Response)
		var parts []string
		for _, k := range []string{"stderr", "stdout", "output", "llmContent", "aggregated_output", "formatted_output", "error"} {
			if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
				parts = append(parts, s)
			}
		}
		out.text = strings.Join(parts, "\n")
		out.interrupted, _ = m["interrupted"].(bool)
		for _, k := range []string{"exit_code", "exitCode", "exit", "returncode"} {
			if n, ok := m[k].(float64); ok {
				code := int(n)
				out.exitCode = &code
				break
			}
		}
		if out.exitCode == nil {
			if md, ok := m["metadata"].(map[string]any); ok {
				if n, ok := md["exit"].(float64); ok {
					code := int(n)
					out.exitCode = &code
				}
			}
		}
	}
	if c.Error != "" {
		out.text = c.Error + "\n" + out.text
	}
	if out.exitCode == nil {
		if m := exitLine.Get().FindStringSubmatch(out.text); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				out.exitCode = &n
			}
		}
	}
	out.text = privacy.Filter(clip(privacy.Strip(out.text)))
	return out
}

// clipLen bounds how much of a command's output capture reads: errors are
// printed near the start or the end, and the privacy filter and the failure
// patterns cost time in proportion to the text.
const clipLen = 32 << 10

// clip keeps the head and tail of a long output, and cuts very long lines.
// Its input has no private parts left (clipping could drop an opening tag),
// and its cuts split no secret, so redacting after it is enough.
func clip(s string) string {
	if len(s) > 2*clipLen {
		s = headOf(s, clipLen) + "\n…\n" + tailOf(s, clipLen)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = headOf(l, 1000)
	}
	return strings.ToValidUTF8(strings.Join(lines, "\n"), "")
}

// commandText returns the command of a shell call (a string, or an argv
// array as Codex sends it).
func commandText(in map[string]any) string {
	switch v := in["command"].(type) {
	case string:
		return v
	case []any:
		parts := make([]string, 0, len(v))
		for _, p := range v {
			if s, ok := p.(string); ok {
				parts = append(parts, s)
			}
		}
		// ["bash", "-lc", "go test ./..."] is really the last element.
		if len(parts) == 3 && (parts[1] == "-lc" || parts[1] == "-c") {
			return parts[2]
		}
		return strings.Join(parts, " ")
	}
	return str(in, "cmd", "script")
}

// commandResult turns a shell call into a problem when it failed, or into a
// passing check that may resolve an earlier failure.
func commandResult(c Call, in map[string]any, w Where) Result {
	cmd := strings.TrimSpace(clean(commandText(in)))
	if cmd == "" {
		return Result{}
	}
	out := commandOutput(c)
	if out.interrupted && !c.Failed {
		return Result{} // the user stopped it: neither a failure nor a pass
	}
	check := isCheck(cmd) || nodeTest(cmd)
	failed := c.Failed
	switch {
	case failed:
	case out.exitCode != nil:
		failed = *out.exitCode != 0
	case readOnly(cmd):
		failed = false
	default:
		// No exit code (Codex gives the output alone): only output that
		// says so is a failure.
		failed = looksFailed(out.text) || testsFailed(out.text)
	}
	run := &Run{Command: cmd, Failed: failed, IsCheck: check}
	if !failed {
		reads := relPaths(shellReads(cmd, out.text), w)
		fetched := fetchedRefs(cmd, out.text)
		if check {
			return Result{Check: run, FilesRead: reads, Fetched: fetched}
		}
		return Result{FilesRead: reads, Fetched: fetched}
	}
	errLine := errorLine(out.text)
	if readsSecretFile(cmd, out.text) {
		// What a key or credentials file holds is never stored, whatever
		// the patterns say: its lines may be in the output.
		errLine, out.text = "", ""
	}
	short := text.Cut(firstLine(cmd, 200), 100)
	o := &memory.Observation{Type: memory.TypeProblem, ToolName: c.Tool}
	// What a network command prints came from elsewhere: the title is
	// mem's own words, the output stays in the facts for mem get.
	o.Untrusted = guard.NetworkCommand(cmd)
	o.Title = "Command failed: " + short
	if errLine != "" && !o.Untrusted {
		o.Title = text.Cut(short+" failed: "+errLine, 300)
	}
	o.Facts = []string{"command: " + text.Cut(cmd, 500)}
	if errLine != "" {
		o.Facts = append(o.Facts, "error: "+errLine)
	}
	if out.exitCode != nil {
		o.Facts = append(o.Facts, fmt.Sprintf("exit code: %d", *out.exitCode))
	}
	tests := failingTests(out.text)
	if len(tests) > 0 {
		o.Facts = append(o.Facts, "failing tests: "+strings.Join(tests, ", "))
	}
	o.Concepts = []string{ConceptCommandFailed}
	if check {
		o.Concepts = append(o.Concepts, ConceptCheck)
	}
	if desc := clean(str(in, "description")); desc != "" {
		o.Subtitle = text.Cut(desc, 200)
	}
	o.Narrative = "Ran `" + text.Cut(cmd, 500) + "` and it failed"
	if errLine != "" {
		o.Narrative += " with: " + errLine
	}
	o.Narrative += "."
	return observe(o, c, w)
}

// Success returns the success observation a passing check earns when the
// session's latest command problem (last) was a failed check, or nil.
func Success(run Run, last *memory.Observation, w Where, tool string) *memory.Observation {
	if run.Failed || !run.IsCheck || last == nil || last.Type != memory.TypeProblem || !hasConcept(last, ConceptCheck) {
		return nil
	}
	short := text.Cut(firstLine(run.Command, 200), 100)
	o := &memory.Observation{Type: memory.TypeSuccess, ToolName: tool,
		Title:     short + " passes again",
		Narrative: "After the failure \"" + last.Title + "\", `" + text.Cut(run.Command, 500) + "` passed.",
		Facts:     []string{"command: " + text.Cut(run.Command, 500), "resolved: " + last.Title},
		Concepts:  []string{ConceptCheck},
	}
	r := observe(o, Call{Tool: tool}, w)
	return r.Observation
}

func hasConcept(o *memory.Observation, c string) bool {
	for _, x := range o.Concepts {
		if x == c {
			return true
		}
	}
	return false
}

// checkRe matches test, build, lint and type-check commands.
var checkRe = lazy.NewRegexp(`(?:^|[;&|(]\s*|\s)(?:go (?:test|build|vet|run)|gotestsum|golangci-lint|staticcheck|` +
	`(?:npm|pnpm|yarn|bun)(?: run)? (?:test|build|lint|check|typecheck)|npx (?:jest|vitest|tsc|eslint|mocha|playwright)|` +
	`jest|vitest|mocha|tsc|eslint|pytest|python3? -m (?:pytest|unittest)|tox|nox|ruff|mypy|` +
	`cargo (?:test|build|check|clippy|nextest)|make(?:\s|$)|cmake --build|ninja|mvn|gradle|\./gradlew|` +
	`dotnet (?:test|build)|rspec|rake|bundle exec (?:rspec|rake)|mix (?:test|compile)|swift (?:test|build)|` +
	`ctest|bazel (?:test|build)|phpunit|deno (?:test|check)|scripts/test)\b`)

func isCheck(cmd string) bool { return checkRe.Get().MatchString(cmd) }

// readOnlyProgram reports whether a program prints what it finds: a match on
// "error" in its output is data, not a failure.
func readOnlyProgram(name string) bool {
	switch name {
	case "grep", "rg", "ag", "cat", "less", "head", "tail", "ls", "find", "fd", "tree", "wc", "sed", "awk",
		"jq", "echo", "printf", "which", "file", "stat", "du", "df", "git", "nl", "sort", "uniq", "diff",
		"pwd", "env", "type", "man":
		return true
	}
	return false
}

// readsSecretFile reports whether cmd reads a file that holds keys or
// credentials by its nature (privacy.IsSecretFile).
func readsSecretFile(cmd, output string) bool {
	return slices.ContainsFunc(shellReads(cmd, output), privacy.IsSecretFile)
}

// nodeTest reports whether cmd runs Node's own test runner.
func nodeTest(cmd string) bool {
	for _, seg := range shellSegments(cmd) {
		words := shellWords(seg)
		if len(words) > 1 && words[0] == "node" && slices.Contains(words[1:], "--test") {
			return true
		}
	}
	return false
}

// testsFailed reports whether a test runner's summary counts failures: TAP
// ("# fail 1") or Node's spec reporter ("ℹ fail 1").
func testsFailed(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"# fail ", "ℹ fail "} {
			if n, ok := strings.CutPrefix(l, p); ok {
				if k, err := strconv.Atoi(strings.TrimSpace(n)); err == nil && k > 0 {
					return true
				}
			}
		}
	}
	return false
}

func readOnly(cmd string) bool {
	seg := cmd
	if i := strings.LastIndex(seg, "&&"); i >= 0 {
		seg = seg[i+2:]
	}
	fields := strings.Fields(seg)
	if len(fields) == 0 {
		return false
	}
	return readOnlyProgram(fields[0])
}

// failureRe matches lines that only a failing run prints.
var failureRe = lazy.NewRegexp(`(?m)^(?:--- FAIL|FAIL(?:\s|$)|panic: |Traceback \(most recent call last\)|npm ERR!|` +
	`error(?:\[E\d+\])?: |Error: |fatal: |make(?:\[\d+\])?: \*\*\*|FAILED|BUILD FAILED|` +
	`\S+\.\w+:\d+:\d+: |.*: command not found$|.*: No such file or directory$|` +
	`(?:Tests?|Test Suites):\s+\d+ failed|=+ .*\b\d+ (?:failed|errors?)\b.*=+$|E\s{3}\S)`)

func looksFailed(text string) bool { return failureRe.Get().MatchString(text) }

// noiseRe matches lines that say a run failed without saying why.
var noiseRe = lazy.NewRegexp(`^(?:FAIL(?:\s.*)?|--- FAIL: .*|=== RUN .*|exit status \d+|Exit Code: .*|` +
	`Command exited with.*|Command: .*|Directory: .*|Error: \(none\)|ok\s.*|PASS|` +
	`make(?:\[\d+\])?: \*\*\*.*|npm ERR! (?:code|path|errno|command|A complete log).*|=+.*=+|-+|\s*at .*)$`)

// meaningfulRe matches lines that say why: a message at a position in a file,
// an error or panic message, an exception.
var meaningfulRe = lazy.NewRegexp(`(?i)(?:\S+\.\w+:\d+(?::\d+)?:\s*\S|^panic: |\berror\b|\bexception\b|\bfailed\b|` +
	`\bcannot\b|\bundefined\b|not found|no such file|\bexpected\b|\bwant\b|^E\s+\S|^\w+(?:Error|Exception): )`)

// errorLine picks the first line of output that says why a run failed.
func errorLine(out string) string {
	lines := strings.Split(out, "\n")
	// Python: the exception is the last line of a traceback.
	for i, l := range lines {
		if strings.HasPrefix(l, "Traceback (most recent call last)") {
			for j := i + 1; j < len(lines); j++ {
				t := strings.TrimSpace(lines[j])
				if t != "" && !strings.HasPrefix(lines[j], " ") && !strings.HasPrefix(t, "File ") {
					return text.Cut(t, 200)
				}
			}
		}
	}
	var fallback string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		for _, p := range []string{"Stdout:", "Stderr:"} { // Gemini's labelled output
			t = strings.TrimSpace(strings.TrimPrefix(t, p))
		}
		if t == "" || noiseRe.Get().MatchString(t) {
			continue
		}
		if meaningfulRe.Get().MatchString(t) {
			return text.Cut(t, 200)
		}
		if fallback == "" {
			fallback = t
		}
	}
	return text.Cut(fallback, 200)
}

var failTestRe = lazy.NewRegexp(`(?m)^\s*--- FAIL: (\S+)|^FAILED (\S+)|^\s*✕ (.+?)(?: \(\d+ ?ms\))?$`)

// failingTests lists up to five failing test names.
func failingTests(text string) []string {
	var out []string
	for _, m := range failTestRe.Get().FindAllStringSubmatch(text, -1) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, strings.TrimSpace(g))
			}
		}
	}
	out = memory.CleanList(out)
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}

// readPaths lists the files and folders a read or search call looked at;
// for a search, the files its output names too.
func readPaths(c Call, in map[string]any, w Where, search bool) []string {
	paths := []string{str(in, "file_path", "filePath", "absolute_path", "notebook_path", "path", "dir_path")}
	if list, ok := in["paths"].([]any); ok {
		for _, p := range list {
			if s, ok := p.(string); ok {
				paths = append(paths, s)
			}
		}
	}
	resp := decodeObject(c.Response)
	if list, ok := resp["filenames"].([]any); ok { // Claude's Grep and Glob
		for i, p := range list {
			if i == maxHits {
				break
			}
			if s, ok := p.(string); ok {
				paths = append(paths, s)
			}
		}
	} else if search && hitTool(strings.ToLower(c.Tool)) {
		// Gemini's grep_search and glob, OpenCode's grep and glob: text.
		paths = append(paths, searchHits(commandOutput(c).text)...)
	}
	return relPaths(paths, w)
}

// hitTool reports whether a search tool's output names the files found.
func hitTool(name string) bool {
	switch name {
	case "grep", "glob", "grep_search", "search_file_content":
		return true
	}
	return false
}

// relPaths filters paths and makes them relative to the project root,
// leaving out blanks and the root itself.
func relPaths(list []string, w Where) []string {
	var paths []string
	for _, p := range list {
		if p = rel(clean(p), w); p != "" && p != "." {
			paths = append(paths, p)
		}
	}
	return memory.CleanList(paths)
}
