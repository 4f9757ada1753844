//go:build unix

package triggers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeToken is a GitHub token of the documented shape (ghp_ and 36 more).
const fakeToken = "ghp_" + "Zx9aB7cD5eF3gH1iJ0kL2mN4oP6qR8sT0uV2"

// TestContextFilesInAHostileRepository: context files and rule folders that
// are links out of the project bring nothing, FIFOs (an AGENTS.md, a rule)
// are skipped without blocking, links that stay inside are read, and the
// secrets of files inside are redacted before they are registered.
func TestContextFilesInAHostileRepository(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	outside := t.TempDir()
	secret := "OUTSIDE-TEXT\n[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
	for _, p := range []string{"credentials", "docs/AGENTS.md", "docs/README.md", "rules/x.mdc", "github/instructions/x.instructions.md"} {
		text := secret
		if strings.HasSuffix(p, "x.mdc") || strings.HasSuffix(p, ".instructions.md") {
			text = "---\nglobs: \"**\"\napplyTo: \"**\"\n---\n" + secret
		}
		mkfile(t, filepath.Join(outside, p), text)
	}
	link := func(target, rel string) {
		p := filepath.Join(f.root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(outside, "credentials"), "AGENTS.md")
	link(filepath.Join(outside, "credentials"), "sub/README.md")
	link(filepath.Join(outside, "docs"), "docs")
	link(filepath.Join(outside, "rules", "x.mdc"), ".cursor/rules/x.mdc")
	link(filepath.Join(outside, "rules"), ".claude/rules")
	link(filepath.Join(outside, "github"), ".github")
	f.write(t, "README.md", "The shop API.\ntoken: "+fakeToken+"\npassword = hunter2hunter2\nRun make.\n")
	f.write(t, "sub/AGENTS.md", "Sub folder guidance.")
	f.write(t, "shared/AGENTS.md", "Shared guidance, linked from inside.")
	link("../shared/AGENTS.md", "inner/AGENTS.md")
	f.write(t, "fifo/README.md", "Next to a FIFO.")
	if err := syscall.Mkfifo(filepath.Join(f.root, "fifo", "AGENTS.md"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	f.write(t, ".cursor/rules/inside.mdc", "---\nalwaysApply: true\n---\nA rule from inside.")
	if err := syscall.Mkfifo(filepath.Join(f.root, ".cursor", "rules", "fifo.mdc"), 0o644); err != nil {
		t.Fatal(err)
	}

	done := make(chan error, 1)
	go func() {
		for _, p := range []string{"a.go", "sub/a.go", "docs/x.md", "inner/a.go", "fifo/a.go"} {
			if _, err := f.eng.OnFile(ctx, f.ses, filepath.Join(f.root, p), false); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("blocked on a context file")
	}

	want := "rules-injector:.cursor/rules/inside.mdc@high directory-agents:sub/AGENTS.md@normal directory-agents:inner/AGENTS.md@normal " +
		"directory-readme:README.md@low directory-readme:fifo/README.md@low"
	if got := f.pending(t); got != want {
		t.Errorf("registered:\n got %s\nwant %s", got, want)
	}
	es, err := f.db.PendingEntries(ctx, f.ses.ID)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, e := range es {
		all.WriteString(e.Content + "\n")
	}
	for _, bad := range []string{"OUTSIDE-TEXT", "AKIA", "wJalrXUtnFEMI", fakeToken, "hunter2"} {
		if strings.Contains(all.String(), bad) {
			t.Errorf("%q registered:\n%s", bad, all.String())
		}
	}
	for _, good := range []string{"The shop API.", "token: [REDACTED]", "password = [REDACTED]", "Run make.", "Shared guidance", "A rule from inside."} {
		if !strings.Contains(all.String(), good) {
			t.Errorf("%q missing from:\n%s", good, all.String())
		}
	}
}

func mkfile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
