package install

import (
	"strings"
	"testing"
)

// The flat hooks files of Copilot CLI and Cursor: {"version": 1, "hooks":
// {event: [entry, ...]}}.

// TestFlatRoundTrip: install, install again, then uninstall gives each
// user's file back byte for byte, one-line entries of other tools as they
// were; a file that was not there is not there after.
func TestFlatRoundTrip(t *testing.T) {
	// Arrays mem adds to are written indented, as the agents' own examples
	// are; one-line entries in them, and untouched one-line arrays, stay.
	cursorUser := "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [\n      { \"command\": \"./hooks/format.sh\" }\n    ],\n" +
		"    \"beforeShellExecution\": [{ \"command\": \"./hooks/guard.sh\", \"matcher\": \"rm\" }]\n  }\n}\n"
	copilotUser := "{\n  \"version\": 1,\n  \"disableAllHooks\": false,\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"type\": \"command\",\n" +
		"        \"bash\": \"echo hi >> log\"\n      }\n    ]\n  }\n}\n"
	for _, tc := range []struct{ agent, before string }{
		{"cursor", cursorUser},
		{"cursor", ""},
		{"cursor", "{\n  \"version\": 1\n}\n"},
		{"copilot", copilotUser},
		{"copilot", ""},
	} {
		var before []byte
		if tc.before != "" {
			before = []byte(tc.before)
		}
		p, err := Install(tc.agent, "hooks.json", before, "/usr/local/bin/mem")
		if err != nil || !p.Changed {
			t.Fatalf("%s: install: changed %v, %v", tc.agent, p.Changed, err)
		}
		a, _ := Lookup(tc.agent)
		n := len(a.Hooks.(flatHooks).events)
		if got := strings.Count(string(p.After), "/usr/local/bin/mem hook "+tc.agent); got != n {
			t.Errorf("%s: %d entries of mem, want %d:\n%s", tc.agent, got, n, p.After)
		}
		if !strings.HasPrefix(string(p.After), "{\n  \"version\": 1,") {
			t.Errorf("%s: the file does not start with its version:\n%s", tc.agent, p.After)
		}
		again, err := Install(tc.agent, "hooks.json", p.After, "/usr/local/bin/mem")
		if err != nil || again.Changed {
			t.Errorf("%s: second install changed the file (%v)", tc.agent, err)
		}
		u, err := Uninstall(tc.agent, "hooks.json", p.After, "/usr/local/bin/mem")
		if err != nil || !u.Changed {
			t.Fatalf("%s: uninstall: changed %v, %v", tc.agent, u.Changed, err)
		}
		if tc.before == "" || tc.before == "{\n  \"version\": 1\n}\n" {
			if u.After != nil {
				t.Errorf("%s from %q: uninstall left %q, want the file removed", tc.agent, tc.before, u.After)
			}
			continue
		}
		if string(u.After) != tc.before {
			t.Errorf("%s: uninstall gave\n%s\nwant\n%s", tc.agent, u.After, tc.before)
		}
	}
}

// TestFlatEntries: the entries mem writes, per agent.
func TestFlatEntries(t *testing.T) {
	p, _ := Install("copilot", "mem.json", nil, "/opt/mem")
	want := `"SessionStart": [
      {
        "type": "command",
        "bash": "/opt/mem hook copilot",
        "timeoutSec": 5
      }
    ],`
	if !strings.Contains(string(p.After), want) {
		t.Errorf("copilot:\n%s\nwant\n%s", p.After, want)
	}
	p, _ = Install("cursor", "hooks.json", nil, "/opt/mem")
	want = `"sessionStart": [
      {
        "command": "/opt/mem hook cursor"
      }
    ],`
	if !strings.Contains(string(p.After), want) {
		t.Errorf("cursor:\n%s\nwant\n%s", p.After, want)
	}
}

// TestFlatOtherToolsStay: entries of other tools stay, even when their
// command ends like mem's; mem's are found by the binary install wrote, or
// any binary named mem.
func TestFlatOtherToolsStay(t *testing.T) {
	for _, tc := range []struct {
		agent, entry string
		ours         bool
	}{
		{"cursor", `{"command":"/usr/bin/notify hook cursor"}`, false},
		{"cursor", `{"command":""}`, false},
		{"cursor", `{"bash":"/usr/bin/mem hook cursor"}`, false},
		{"cursor", `{"command":"/usr/bin/mem hook cursor"}`, true},
		{"cursor", `{"command":"/usr/local/bin/mem2 hook cursor"}`, true},
		{"cursor", `{"command":"/usr/bin/mem hook copilot"}`, false},
		{"copilot", `{"type":"command","bash":"/home/me/bin/mem hook copilot","timeoutSec":5}`, true},
		{"copilot", `{"type":"command","command":"/home/me/bin/mem hook copilot"}`, false},
		{"copilot", `"not an entry"`, false},
	} {
		before := []byte(`{"version":1,"hooks":{"sessionEnd":[` + tc.entry + `]}}`)
		u, err := Uninstall(tc.agent, "h.json", before, "/usr/local/bin/mem2")
		if err != nil || u.Changed != tc.ours {
			t.Errorf("%s %s: removed %v (err %v), want %v", tc.agent, tc.entry, u.Changed, err, tc.ours)
		}
	}
}

// TestFlatRefuses: a shape install would have to guess at is refused,
// naming what is wrong, and nothing is written.
func TestFlatRefuses(t *testing.T) {
	for _, tc := range []struct{ agent, doc, want string }{
		{"cursor", `{"version":2,"hooks":{}}`, `"version" is 2, want 1`},
		{"cursor", `{"version":"1"}`, `"version" is "1", want 1`},
		{"cursor", `{"version":1,"hooks":[]}`, `"hooks" is an array, want an object`},
		{"cursor", `{"version":1,"hooks":{"sessionStart":{"command":"x"}}}`, `"hooks"."sessionStart" is an object, want an array of hook entries ([{"command": ...}])`},
		{"copilot", `{"version":1,"hooks":{"PostToolUse":"x"}}`, `"hooks"."PostToolUse" is a string, want an array of hook entries ([{"bash": ...}])`},
		{"copilot", `[1]`, `not valid JSON`},
	} {
		p, err := Install(tc.agent, "h.json", []byte(tc.doc), "/bin/mem")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("%s %s: err = %v, want %q", tc.agent, tc.doc, err, tc.want)
		}
		if p.After != nil {
			t.Errorf("%s %s: a refused install planned %q", tc.agent, tc.doc, p.After)
		}
	}
}

// TestFlatBinaryNotNamedMem: with a binary not named mem, a second install
// changes nothing and uninstall gives the user's file back.
func TestFlatBinaryNotNamedMem(t *testing.T) {
	user := "{\n  \"version\": 1,\n  \"hooks\": {\n    \"stop\": [{ \"command\": \"notify-send done\" }]\n  }\n}\n"
	for _, agent := range []string{"copilot", "cursor"} {
		for _, bin := range []string{"/tmp/memrev", "/opt/my tools/mem-dev"} {
			p, err := Install(agent, "h.json", []byte(user), bin)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Install(agent, "h.json", p.After, bin)
			if err != nil || again.Changed {
				t.Errorf("%s %s: second install changed the file (%v)", agent, bin, err)
			}
			u, err := Uninstall(agent, "h.json", again.After, bin)
			if err != nil || string(u.After) != user {
				t.Errorf("%s %s: uninstall gave %s (%v)", agent, bin, u.After, err)
			}
		}
	}
}
