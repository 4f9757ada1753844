package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The transcript Codex 0.169.0 wrote for the harness's work session with a
// model outside its catalogue: the model ran apply_patch through its shell
// (exec_command), and Codex sent no tool event for it.
const shellPatchTranscript = "testdata/codex-0.169.0-shell-patch.jsonl"

func TestCodexShellPatchesFromTheTranscript(t *testing.T) {
	const turn = "01a20b7c-a437-75e3-9002-478ea769122d"
	calls := codexShellPatches(shellPatchTranscript, turn)
	if len(calls) != 1 {
		t.Fatalf("%d patches, want 1: %+v", len(calls), calls)
	}
	var in struct{ Command string }
	if err := json.Unmarshal(calls[0].Input, &in); err != nil || calls[0].Tool != "apply_patch" {
		t.Fatalf("call %+v: %v", calls[0], err)
	}
	want := "*** Begin Patch\n*** Update File: src/discount.js\n@@\n-  return Math.floor(cents * (100 - percent) / 100);\n+  return Math.round(cents * (100 - percent) / 100);\n*** End Patch\n"
	if in.Command != want {
		t.Errorf("patch %q, want %q", in.Command, want)
	}
	for name, got := range map[string]int{
		"another turn":  len(codexShellPatches(shellPatchTranscript, "01a20b7c-0000-0000-0000-000000000000")),
		"no turn":       len(codexShellPatches(shellPatchTranscript, "")),
		"no transcript": len(codexShellPatches(filepath.Join(t.TempDir(), "none.jsonl"), turn)),
		"a folder":      len(codexShellPatches(t.TempDir(), turn)),
	} {
		if got != 0 {
			t.Errorf("%s: %d patches", name, got)
		}
	}
}

func TestCodexShellPatchThatFailedIsLeftOut(t *testing.T) {
	b, err := os.ReadFile(shellPatchTranscript)
	if err != nil {
		t.Fatal(err)
	}
	failed := strings.ReplaceAll(string(b), `Success. Updated the following files:`, `apply_patch verification failed:`)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(failed), 0o600); err != nil {
		t.Fatal(err)
	}
	if calls := codexShellPatches(path, "01a20b7c-a437-75e3-9002-478ea769122d"); len(calls) != 0 {
		t.Errorf("a failed patch was kept: %+v", calls)
	}
}

func TestShellPatch(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch"
	for args, want := range map[string]string{
		`{"cmd":"apply_patch <<'EOF'\n` + strings.ReplaceAll(patch, "\n", `\n`) + `\nEOF"}`:               patch + "\n",
		`{"command":["bash","-lc","applypatch <<'P'\n` + strings.ReplaceAll(patch, "\n", `\n`) + `\nP"]}`: patch + "\n",
		`{"cmd":"cat a.txt"}`:          "",
		`{"cmd":"echo apply_patch"}`:   "",
		`{"cmd":"apply_patch --help"}`: "",
		`not json`:                     "",
	} {
		if got := shellPatch(args); got != want {
			t.Errorf("shellPatch(%s) = %q, want %q", args, got, want)
		}
	}
}
