package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixture is a hooks.json with mem's hooks and a user's (a matcher, a
// status message, async, no timeout, a SessionEnd timeout Codex holds to
// 3 s, characters JSON may escape), and what Codex 0.169.0 answered for it
// to `codex app-server` hooks/list: each hook's key and current hash.
const fixtureSource = "/tmp/codexw/fx/.codex/hooks.json"

func TestCodexHookHashesAreCodexs(t *testing.T) {
	dir := filepath.Join("testdata", "codex-0.169.0")
	settings, err := os.ReadFile(filepath.Join(dir, "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "hooks-list.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data []struct {
			Hooks []struct {
				Key         string `json:"key"`
				CurrentHash string `json:"currentHash"`
			} `json:"hooks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Data) != 1 {
		t.Fatalf("fixture: %v", err)
	}
	want := map[string]string{}
	for _, h := range list.Data[0].Hooks {
		want[h.Key] = h.CurrentHash
	}
	all, err := codexHooks(fixtureSource, settings, func(*object) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(want) {
		t.Errorf("%d hooks, Codex lists %d", len(all), len(want))
	}
	for _, h := range all {
		if want[h.Key] != h.Hash {
			t.Errorf("%s: hash %s, Codex computes %q", h.Key, h.Hash, want[h.Key])
		}
	}
	ours, err := HooksTrust("codex", fixtureSource, settings, nil, "/usr/local/bin/mem")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, h := range ours {
		keys = append(keys, strings.TrimPrefix(h.Key, fixtureSource+":"))
		if h.Status() != "untrusted" {
			t.Errorf("%s: %s without any trust recorded", h.Key, h.Status())
		}
	}
	if got := strings.Join(keys, " "); got != "session_start:1:0 user_prompt_submit:0:0 post_tool_use:0:1 stop:0:0 session_end:0:0" {
		t.Errorf("mem's hooks: %s", got)
	}
}

func TestTrustInstallUninstallRestores(t *testing.T) {
	settings, err := os.ReadFile(filepath.Join("testdata", "codex-0.169.0", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	other := "[hooks.state.\"/x/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:abc\"\n"
	for name, before := range map[string]string{
		"none":            "",
		"model":           "model = \"o3\"\n",
		"no final end":    "model = \"o3\"",
		"other trust":     "model = \"o3\"\n\n" + other,
		"parent table":    "[hooks.state]\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n",
		"string like one": "notes = \"\"\"\n[hooks.state.\"" + fixtureSource + ":stop:0:0\"]\n\"\"\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			var b []byte
			if before != "" {
				b = []byte(before)
			}
			p, err := InstallTrust("codex", "config.toml", fixtureSource, settings, b, "/usr/local/bin/mem")
			if err != nil || !p.Changed {
				t.Fatalf("install: %v changed=%v", err, p.Changed)
			}
			conf := string(p.After)
			if !strings.HasPrefix(conf, before) && name != "no final end" {
				t.Errorf("the user's lines moved:\n%s", conf)
			}
			hooks, err := HooksTrust("codex", fixtureSource, settings, p.After, "/usr/local/bin/mem")
			if err != nil || len(hooks) != 5 {
				t.Fatalf("after install: %v %d hooks", err, len(hooks))
			}
			for _, h := range hooks {
				if h.Status() != "trusted" {
					t.Errorf("%s: %s after install", h.Key, h.Status())
				}
			}
			again, err := InstallTrust("codex", "config.toml", fixtureSource, settings, p.After, "/usr/local/bin/mem")
			if err != nil || again.Changed {
				t.Errorf("second install changed the file: %v\n%s", err, again.After)
			}
			un, err := UninstallTrust("codex", "config.toml", fixtureSource, settings, p.After, "/usr/local/bin/mem")
			if err != nil {
				t.Fatal(err)
			}
			want := before
			if name == "no final end" {
				want += "\n" // install ended the last line
			}
			if string(un.After) != want || (before == "" && un.After != nil) {
				t.Errorf("uninstall left\n%q\nwant\n%q", un.After, want)
			}
		})
	}
}

func TestStaleTrustIsReplacedOnItsLine(t *testing.T) {
	settings, err := os.ReadFile(filepath.Join("testdata", "codex-0.169.0", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	key := fixtureSource + ":stop:0:0"
	before := "[hooks.state.\"" + key + "\"]\nenabled = true\ntrusted_hash = \"sha256:old\" # from /hooks\n\n[other]\nx = 1\n"
	hooks, err := HooksTrust("codex", fixtureSource, settings, []byte(before), "/usr/local/bin/mem")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hooks {
		if h.Key == key && h.Status() != "stale" {
			t.Errorf("%s: %s, want stale", key, h.Status())
		}
	}
	p, err := InstallTrust("codex", "config.toml", fixtureSource, settings, []byte(before), "/usr/local/bin/mem")
	if err != nil {
		t.Fatal(err)
	}
	got := string(p.After)
	if !strings.HasPrefix(got, "[hooks.state.\""+key+"\"]\nenabled = true\ntrusted_hash = \"sha256:b3c6d2bb") ||
		strings.Count(got, key) != 1 || !strings.Contains(got, "\n\n[other]\nx = 1\n") {
		t.Errorf("stale trust not replaced in place:\n%s", got)
	}
}

func TestTrustFormsMemDoesNotEditAreRefused(t *testing.T) {
	settings, err := os.ReadFile(filepath.Join("testdata", "codex-0.169.0", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, conf := range []string{
		"hooks = { state = {} }\n",
		"hooks.state.x.trusted_hash = \"a\"\n",
		"[hooks]\nstate = { }\n",
		"[hooks.state]\n\"" + fixtureSource + ":stop:0:0\" = { trusted_hash = \"a\" }\n",
		"[[hooks.state.\"" + fixtureSource + ":stop:0:0\"]]\ntrusted_hash = \"a\"\n",
		"[[hooks]]\nx = 1\n",
	} {
		p, err := InstallTrust("codex", "config.toml", fixtureSource, settings, []byte(conf), "/usr/local/bin/mem")
		if err == nil || !strings.Contains(err.Error(), "/hooks") || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("%q: %v\n%s", conf, err, p.After)
		}
	}
}

func TestSerdeString(t *testing.T) {
	for in, want := range map[string]string{
		"a<b>&c":     `"a<b>&c"`,
		"q\"\\":      `"q\"\\"`,
		"\b\f\n\r\t": `"\b\f\n\r\t"`,
		"\x01\x1f":   `"\u0001\u001f"`,
		"ü\u2028":    "\"ü\u2028\"",
	} {
		if got := serdeString(in); got != want {
			t.Errorf("serdeString(%q) = %s, want %s", in, got, want)
		}
	}
}

// Codex keys a hook by its place in hooks.json. A hook the user adds
// before mem's moves mem's to another key: mem's hook is then untrusted
// there (Codex's own view), and the table mem recorded stays at the old key,
// where it now names the user's hook with mem's hash (shown as changed
// since trusted, never run). Installing again moves mem's table to the new
// key, with any line the user added to it (enabled = false); uninstall
// takes it out wherever it is.
func TestTrustFollowsMemsHookWhenItMoves(t *testing.T) {
	settings, err := os.ReadFile(filepath.Join("testdata", "codex-0.169.0", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	const bin = "/usr/local/bin/mem"
	moved := []byte(strings.Replace(string(settings), "\"SessionStart\": [\n",
		"\"SessionStart\": [\n      { \"hooks\": [ { \"type\": \"command\", \"command\": \"echo new\" } ] },\n", 1))
	oldKey, newKey := fixtureSource+":session_start:1:0", fixtureSource+":session_start:2:0"
	status := func(settings, conf []byte) map[string]string {
		t.Helper()
		all, err := codexHooks(fixtureSource, settings, func(*object) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		states, err := hookStates(conf)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, h := range all {
			h.Trusted, h.Enabled = states[h.Key].trusted, true
			if s, ok := states[h.Key]; ok {
				h.Enabled = s.enabled
			}
			out[h.Key] = h.Status()
			if !h.Enabled {
				out[h.Key] += ",disabled"
			}
		}
		return out
	}
	for _, tc := range []struct{ name, user, userAfter string }{
		{"trusted by install", "", ""},
		{"turned off in codex", "enabled = false\n", ",disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := InstallTrust("codex", "config.toml", fixtureSource, settings, nil, bin)
			if err != nil {
				t.Fatal(err)
			}
			conf := []byte(strings.Replace(string(p.After), "["+`hooks.state."`+oldKey+`"]`+"\n", "["+`hooks.state."`+oldKey+`"]`+"\n"+tc.user, 1))
			if s := status(moved, conf); s[newKey] != "untrusted" || s[oldKey] != "stale"+tc.userAfter {
				t.Fatalf("after the user's hook went in: mem's %s, the user's %s", s[newKey], s[oldKey])
			}
			again, err := InstallTrust("codex", "config.toml", fixtureSource, moved, conf, bin)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.Replace(string(conf), oldKey, newKey, 1); string(again.After) != want {
				t.Errorf("install again:\n%s\nwant mem's table moved to the new key:\n%s", again.After, want)
			}
			if s := status(moved, again.After); s[newKey] != "trusted"+tc.userAfter || s[oldKey] != "untrusted" {
				t.Errorf("after install again: mem's %s, the user's %s", s[newKey], s[oldKey])
			}
			for _, c := range [][]byte{conf, again.After} {
				un, err := UninstallTrust("codex", "config.toml", fixtureSource, moved, c, bin)
				if err != nil || un.After != nil {
					t.Errorf("uninstall left %q (%v)", un.After, err)
				}
			}
		})
	}
}
