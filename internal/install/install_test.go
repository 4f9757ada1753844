package install

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestUninstallKeepsWhatIsNotOurs(t *testing.T) {
	before := []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"},{"type":"command","command":"/usr/bin/mem hook claude","timeout":5}]}],"Other":[]}}`)
	p, err := Uninstall("claude", "s.json", before, "")
	if err != nil || !p.Changed {
		t.Fatalf("changed %v, err %v", p.Changed, err)
	}
	got := string(p.After)
	if !strings.Contains(got, "notify-send done") || strings.Contains(got, "mem hook") || !strings.Contains(got, `"Other": []`) {
		t.Fatalf("got %s", got)
	}
}

func TestInstallTwiceIsUnchanged(t *testing.T) {
	for _, agent := range []string{"claude", "codex", "gemini"} {
		p, err := Install(agent, "s.json", nil, "/bin/mem")
		if err != nil {
			t.Fatal(err)
		}
		again, err := Install(agent, "s.json", p.After, "/bin/mem")
		if err != nil || again.Changed {
			t.Errorf("%s: second install changed the file (err %v)", agent, err)
		}
		u, _ := Uninstall(agent, "s.json", p.After, "/bin/mem")
		if !u.Changed || u.After != nil {
			t.Errorf("%s: uninstall left %q, want the file mem created removed", agent, u.After)
		}
	}
}

func TestOursMatchesOnlyMem(t *testing.T) {
	re := ours("claude")
	for cmd, want := range map[string]bool{
		"/usr/local/bin/mem hook claude": true, "mem hook claude": true, "'/a b/mem' hook claude": true,
		"C:\\mem.exe hook claude": true, "memx hook claude": false, "/bin/mem hook codex": false, "echo mem hook claude-ish": false,
	} {
		if re.MatchString(cmd) != want {
			t.Errorf("%q: got %v", cmd, !want)
		}
	}
}

func TestNotAnObject(t *testing.T) {
	if _, err := Install("claude", "s.json", []byte(`[1]`), "mem"); err == nil {
		t.Error("an array is not a settings file")
	}
	if _, err := Install("claude", "s.json", []byte(`{"hooks": 3}`), "mem"); err == nil {
		t.Error(`"hooks": 3 must be refused`)
	}
}

// TestBinaryNotNamedMem: with a binary whose file is not named mem, a second
// install changes nothing and uninstall gives the user's file back, for each
// agent with a settings file.
func TestBinaryNotNamedMem(t *testing.T) {
	user := []byte(`{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}`)
	for _, agent := range []string{"claude", "codex", "gemini"} {
		for _, bin := range []string{"/tmp/memrev", "/opt/my tools/mem-dev", `C:\tools\mem-1.2.exe`, "memrev"} {
			p, err := Install(agent, "s.json", user, bin)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := Lookup(agent)
			n := len(a.Hooks.(jsonHooks).events)
			q, _ := json.Marshal(Command(bin, agent))
			cmd := string(q) // as it appears in the file
			again, err := Install(agent, "s.json", p.After, bin)
			if err != nil || again.Changed || strings.Count(string(again.After), cmd) != n {
				t.Errorf("%s %s: second install changed the file (err %v): %d entries, want %d", agent, bin, err, strings.Count(string(again.After), cmd), n)
			}
			u, err := Uninstall(agent, "s.json", again.After, bin)
			if err != nil || !u.Changed || !sameJSON(u.After, user) {
				t.Errorf("%s %s: uninstall left (err %v)\n%s", agent, bin, err, u.After)
			}
		}
	}
}

// TestOtherToolsStay: entries of other tools stay, even when their command
// ends like mem's, unless they are mem's by name (Gemini).
func TestOtherToolsStay(t *testing.T) {
	for _, tc := range []struct {
		agent, entry string
		ours         bool
	}{
		{"claude", `{"type":"command","command":"/usr/bin/notify hook claude"}`, false},
		{"claude", `{"type":"command","command":""}`, false},
		{"gemini", `{"name":"notify","type":"command","command":"/usr/bin/notify hook gemini"}`, false},
		{"gemini", `{"name":"mem","type":"command","command":"/tmp/memrev hook gemini"}`, true},
		{"gemini", `{"name":"mem","type":"command","command":"/tmp/memrev hook claude"}`, false},
	} {
		before := []byte(`{"hooks":{"Stop":[{"hooks":[` + tc.entry + `]}]}}`)
		u, err := Uninstall(tc.agent, "s.json", before, "/usr/local/bin/mem2")
		if err != nil || u.Changed != tc.ours {
			t.Errorf("%s %s: removed %v (err %v), want %v", tc.agent, tc.entry, u.Changed, err, tc.ours)
		}
	}
}

// TestWrongTypedEventsAreRefused: an event mem adds to that is not an array
// of hook groups is refused, naming it, instead of being replaced.
func TestWrongTypedEventsAreRefused(t *testing.T) {
	for _, tc := range []struct{ agent, doc, want string }{
		{"claude", `{"hooks":{"PostToolUse":"x"}}`, `"hooks"."PostToolUse" is a string, want an array of hook groups`},
		{"claude", `{"hooks":{"Stop":null}}`, `"hooks"."Stop" is null`},
		{"gemini", `{"hooks":{"AfterTool":{"matcher":"write_file"}}}`, `"hooks"."AfterTool" is an object`},
		{"codex", `{"hooks":{"SessionStart":3}}`, `"hooks"."SessionStart" is a number`},
	} {
		_, err := Install(tc.agent, "s.json", []byte(tc.doc), "/bin/mem")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("%s %s: err = %v, want %q", tc.agent, tc.doc, err, tc.want)
		}
	}
}

// TestNestingIsBounded: parsing is refused past MaxDepth, at once, and
// accepted up to it.
func TestNestingIsBounded(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(`{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
	}
	if _, err := parseObject(nest(MaxDepth - 1)); err != nil {
		t.Errorf("depth %d: %v", MaxDepth, err)
	}
	for _, n := range []int{MaxDepth, 100_000} {
		if _, err := parseObject(nest(n)); err == nil || !strings.Contains(err.Error(), "nested more than 512 deep") {
			t.Errorf("depth %d: err = %v", n+1, err)
		}
	}
	// Wide files nested within the limit still cannot make the indented
	// form grow past its bound.
	wide := `{"a":[` + strings.Repeat(strings.Repeat("[", 500)+strings.Repeat("]", 500)+",", 200) + `0]}`
	if _, err := parseObject([]byte(wide)); err == nil || !strings.Contains(err.Error(), "too deeply to write back") {
		t.Errorf("wide and deep: err = %v", err)
	}
}

// TestRecordedEventsAreHooked: each agent's hooks cover the events and
// tools its CLI was recorded sending (internal/e2e/testdata/events).
func TestRecordedEventsAreHooked(t *testing.T) {
	for _, tc := range []struct{ agent, event, tool string }{
		{"codex", "SessionEnd", ""},
		{"gemini", "AfterTool", "grep_search"},         // Gemini 0.61
		{"gemini", "AfterTool", "search_file_content"}, // older Gemini
		{"claude", "SessionEnd", ""},
	} {
		a, _ := Lookup(tc.agent)
		found := false
		for _, ev := range a.Hooks.(jsonHooks).events {
			if ev.name == tc.event && (tc.tool == "" || slices.Contains(strings.Split(ev.matcher, "|"), tc.tool)) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no %s hook for %q", tc.agent, tc.event, tc.tool)
		}
	}
	for _, n := range Codex().Notes {
		if strings.Contains(n, "codex_hooks") || !strings.Contains(n, "/hooks") {
			t.Errorf("codex note %q: want how to trust the hooks, not the deprecated codex_hooks", n)
		}
	}
}

// sameJSON reports whether a and b hold the same JSON object, keys in the
// same order.
func sameJSON(a, b []byte) bool {
	x, errA := parseObject(a)
	y, errB := parseObject(b)
	return errA == nil && errB == nil && string(compact(x)) == string(compact(y))
}

// TestInstallUninstallRestores: install and install-mcp, then uninstall and
// uninstall-mcp, give each agent's files back byte for byte (a file that
// was not there is not there), with the user's one-line objects as they
// were; installing again after install-mcp changes nothing.
func TestInstallUninstallRestores(t *testing.T) {
	gemini := "{\n  \"general\": { \"enableAutoUpdate\": false },\n  \"security\": {\n    \"auth\": { \"selectedType\": \"gemini-api-key\" }\n  }\n}\n"
	for _, tc := range []struct {
		agent string
		files map[string]string // the user's files before, by scope's name
	}{
		{"claude", map[string]string{"settings": "{\n  \"cleanupPeriodDays\": 30,\n  \"includeCoAuthoredBy\": false\n}\n"}},
		{"claude", map[string]string{}},
		{"gemini", map[string]string{"settings": gemini}},
		{"gemini", map[string]string{}},
		{"codex", map[string]string{"mcp": "model = \"o3\"\n\n[model_providers.fake]\nname = \"fake\"\n"}},
		{"codex", map[string]string{}},
		{"opencode", map[string]string{"mcp": "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"permission\": { \"edit\": \"allow\" },\n  \"provider\": {\n    \"fake\": {\n      \"options\": { \"baseURL\": \"http://x/v1\" }\n    }\n  }\n}\n"}},
	} {
		a, _ := Lookup(tc.agent)
		p := Places{Home: "/h", ConfigHome: "/h/.config", Getenv: func(string) string { return "" }}
		settings, mcp := a.Settings.User(p), a.MCPFile.User(p)
		files := map[string][]byte{}
		for name, content := range tc.files {
			files[map[string]string{"settings": settings, "mcp": mcp}[name]] = []byte(content)
		}
		orig := maps.Clone(files)
		apply := func(step string, plan Plan, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s %s: %v", tc.agent, step, err)
			}
			if !plan.Changed {
				return
			}
			if plan.After == nil {
				delete(files, plan.Path)
			} else {
				files[plan.Path] = plan.After
			}
		}
		plan, err := Install(tc.agent, settings, files[settings], "/bin/mem")
		apply("install", plan, err)
		plan, err = InstallMCP(tc.agent, mcp, files[mcp], "/bin/mem", []string{"mcp"})
		apply("install-mcp", plan, err)
		if again, err := Install(tc.agent, settings, files[settings], "/bin/mem"); err != nil || again.Changed {
			t.Errorf("%s: install after install-mcp changed the file (%v)", tc.agent, err)
		}
		plan, err = Uninstall(tc.agent, settings, files[settings], "/bin/mem")
		apply("uninstall", plan, err)
		plan, err = UninstallMCP(tc.agent, mcp, files[mcp])
		apply("uninstall-mcp", plan, err)
		for path, want := range orig {
			if got, ok := files[path]; !ok || string(got) != string(want) {
				t.Errorf("%s: %s is now\n%s\nwant\n%s", tc.agent, path, got, want)
			}
		}
		for path, got := range files {
			if _, ok := orig[path]; !ok {
				t.Errorf("%s: %s was not there and now holds %q", tc.agent, path, got)
			}
		}
	}
}
