package capture

import (
	"encoding/json"
	"strings"
	"testing"
)

const ghToken = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

// fillerLines returns about n bytes of harmless build output.
func fillerLines(n int) string {
	line := "go: downloading example.com/mod v1.2.3\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// middlePrivate is 70 KB of output whose <private> part opens in the middle
// that clipping drops and closes in the tail it keeps.
func middlePrivate() string {
	head := fillerLines(35000) + "\n<private>\n" + fillerLines(2300) + "\nError: secret hunter2\n</private>\n"
	return head + fillerLines(70000-len(head)) + "\nmain.go:3:2: undefined: frobnicate\n"
}

// boundPrefix ends 13 bytes before maxText, so that "tok " and a token
// after it cross the bound.
var boundPrefix = strings.Repeat("x := 1\n", 9360) + "ab\n"

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Private parts and secrets must go even where the text is cut: capture
// bounds what it reads, and the cuts must not hide a <private> tag from the
// filter or split a secret into a fragment the patterns no longer match.
func TestCutTextStaysPrivate(t *testing.T) {
	longLine := strings.Repeat("x", 1200) + "<private>\nError: secret hunter2\n</private>"
	tests := []struct {
		name   string
		call   Call
		leaks  []string
		record bool // the call must still give an observation
	}{
		{name: "private tag past a long line's cut",
			call: Call{Tool: "Bash", Input: mustJSON(t, map[string]any{"command": "make build"}),
				Response: mustJSON(t, map[string]any{"stdout": "", "stderr": longLine})},
			leaks: []string{"hunter2"}},
		{name: "private tag past a long line's cut, failed call",
			call: Call{Tool: "Bash", Input: mustJSON(t, map[string]any{"command": "make build"}), Failed: true,
				Error: "Error: exit status 2", Response: mustJSON(t, map[string]any{"stdout": "", "stderr": longLine})},
			leaks: []string{"hunter2"}, record: true},
		{name: "private tag in the dropped middle",
			call: Call{Tool: "Bash", Input: mustJSON(t, map[string]any{"command": "make build"}),
				Response: mustJSON(t, map[string]any{"stdout": middlePrivate(), "stderr": ""})},
			leaks: []string{"hunter2"}, record: true},
		{name: "token across a line's cut",
			call: Call{Tool: "Bash", Input: mustJSON(t, map[string]any{"command": "make build"}), Failed: true,
				Response: mustJSON(t, map[string]any{"stderr": "error: " + strings.Repeat("y", 982) + " " + ghToken})},
			leaks: []string{"16C7e"}, record: true},
		{name: "token across the text bound",
			call: Call{Tool: "Edit", Input: mustJSON(t, map[string]any{"file_path": "a.go",
				"old_string": boundPrefix + "old", "new_string": boundPrefix + "tok " + ghToken})},
			leaks: []string{"16C7e"}, record: true},
		{name: "private tag in a file path",
			call:  Call{Tool: "Read", Input: mustJSON(t, map[string]any{"file_path": "notes/<private>hunter2</private>.md"})},
			leaks: []string{"hunter2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Analyze(tt.call, here)
			if tt.record && r.Observation == nil {
				t.Fatal("no observation")
			}
			got := string(mustJSON(t, r))
			for _, l := range tt.leaks {
				if strings.Contains(got, l) {
					t.Errorf("%q was kept: %.300s", l, got[max(0, strings.Index(got, l)-200):])
				}
			}
			if out := commandOutput(tt.call); Kind(tt.call.Tool) == kindCommand {
				for _, l := range tt.leaks {
					if strings.Contains(out.text, l) {
						t.Errorf("command output kept %q", l)
					}
				}
			}
		})
	}
}

// Nothing read from, written to or changed in a key or credentials file is
// stored, even what no secret pattern recognises: its path is kept.
func TestKeyFilesKeepTheirPathOnly(t *testing.T) {
	const keyLine = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
	const envLine = "STAGING_DB_PASS=plainvalue"
	tests := []struct {
		name, path, tool string
		input            map[string]any
		leaks            []string
	}{
		{"edit of a key", "deploy/tls/server.key", "Edit",
			map[string]any{"old_string": "oldHead\n" + keyLine, "new_string": "newHead\n" + keyLine + "Z"}, []string{"MIIE", "oldHead", "newHead"}},
		{"multi-edit of a .env", ".env.production", "MultiEdit",
			map[string]any{"edits": []any{map[string]any{"old_string": "A=1", "new_string": envLine}}}, []string{"plainvalue", "A=1"}},
		{"write of an SSH key", "/home/dev/.ssh/id_ed25519", "Write",
			map[string]any{"content": "func leaked() {}\n" + keyLine}, []string{"MIIE", "leaked"}},
		{"write of a credentials file", "/home/dev/.aws/credentials", "Write",
			map[string]any{"content": "[default]\ntype secretType struct{}\n"}, []string{"secretType", "default"}},
		{"patch of a .pem", "", "apply_patch",
			map[string]any{"input": "*** Begin Patch\n*** Update File: certs/ca.pem\n@@\n-" + keyLine + "\n+" + keyLine + "Q\n*** End Patch"}, []string{"MIIE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.input
			if tt.path != "" {
				in["file_path"] = tt.path
			}
			r := Analyze(Call{Tool: tt.tool, Input: mustJSON(t, in)}, here)
			if r.Observation == nil {
				t.Fatal("no observation: the change itself is worth keeping")
			}
			got := string(mustJSON(t, r.Observation))
			for _, l := range tt.leaks {
				if strings.Contains(got, l) {
					t.Errorf("%q was kept: %s", l, got)
				}
			}
			if len(r.Observation.FilesModified) == 0 {
				t.Errorf("the file path was lost: %s", got)
			}
		})
	}
}

// A failing command that printed a credentials file keeps none of its
// lines, whatever the patterns say of them.
func TestShellReadOfASecretFileKeepsNoOutput(t *testing.T) {
	const envLine = "STAGING_DB_HOSTKEY_ALT=plainvalue"
	call := Call{Tool: "Bash", Failed: true,
		Error: "Exit code 2\n" + envLine + "\nmake: *** [build] Error 2 near " + envLine,
		Input: []byte(`{"command":"cat .env && make build"}`)}
	r := Analyze(call, here)
	if r.Observation == nil {
		t.Fatal("no observation: the failure itself is worth keeping")
	}
	if got := string(mustJSON(t, r.Observation)); strings.Contains(got, "plainvalue") {
		t.Errorf("a line of .env was kept: %s", got)
	}
}
