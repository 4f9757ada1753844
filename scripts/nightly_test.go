// Package scripts holds the tests of the shell scripts in this folder.
package scripts

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// installNightly runs scripts/install-nightly with a clean environment.
func installNightly(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"install-nightly"}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestInstallNightlyPrint checks what --print shows for each scheduler
// against testdata/nightly (go test -update rewrites them).
func TestInstallNightlyPrint(t *testing.T) {
	env := []string{"HOME=/home/dev"}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"systemd", []string{"--scheduler", "systemd"}},
		{"cron", []string{"--scheduler", "cron", "--at", "4:05"}},
		{"launchd", []string{"--scheduler", "launchd"}},
		{"systemd-uninstall", []string{"--scheduler", "systemd", "--uninstall"}},
		{"cron-uninstall", []string{"--scheduler", "cron", "--uninstall"}},
		{"launchd-uninstall", []string{"--scheduler", "launchd", "--uninstall"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--print", "--mem", "/opt/mem/bin/mem"}, tc.args...)
			code, got, stderr := installNightly(t, env, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			path := filepath.Join("testdata", "nightly", tc.name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("--print differs from %s (go test -update to accept):\n%s", path, got)
			}
		})
	}
}

// MEM_DB and the log path reach the job, quoted for the shell.
func TestInstallNightlyQuoting(t *testing.T) {
	code, out, stderr := installNightly(t, []string{"HOME=/home/dev", "MEM_DB=/data/it's 100% mine.db"},
		"--print", "--scheduler", "cron", "--mem", "/opt/mem/bin/mem", "--log", "/var/log/my mem.log")
	if code != 0 {
		t.Fatal(stderr)
	}
	line := strings.Split(out, "\n")[1]
	for _, want := range []string{`--db '/data/it'\''s 100\% mine.db'`, `>>'/var/log/my mem.log' 2>&1`, `mkdir -p '/var/log'`} {
		if !strings.Contains(line, want) {
			t.Errorf("crontab line %q lacks %q", line, want)
		}
	}
}

func TestInstallNightlyBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--at", "25:00"}, `--at: must be a time HH:MM such as 03:17 (got "25:00")`},
		{[]string{"--scheduler", "at"}, `--scheduler: must be one of systemd, cron, launchd (got "at")`},
		{[]string{"--bogus"}, "unknown argument: --bogus"},
	} {
		code, _, stderr := installNightly(t, []string{"HOME=/home/dev"}, append(tc.args, "--mem", "/bin/mem", "--print")...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// Installing and removing with cron really edits the crontab, keeping the
// user's other lines and adding ours once (a fake crontab stands in).
func TestInstallNightlyCron(t *testing.T) {
	dir := t.TempDir()
	tab := filepath.Join(dir, "crontab.txt")
	os.WriteFile(tab, []byte("0 * * * * backup.sh\n"), 0o644)
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	fake := "#!/bin/sh\ncase \"$1\" in\n-l) cat '" + tab + "' ;;\n-) cat > '" + tab + ".new' && mv '" + tab + ".new' '" + tab + "' ;;\nesac\n"
	os.WriteFile(filepath.Join(bin, "crontab"), []byte(fake), 0o755)
	env := []string{"HOME=" + dir, "PATH=" + bin + ":" + os.Getenv("PATH")}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("bash", append([]string{"install-nightly", "--scheduler", "cron", "--mem", "/opt/mem"}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v: %s", args, err, out)
		}
	}
	run()
	run("--at", "01:30") // reinstall replaces
	b, _ := os.ReadFile(tab)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "0 * * * * backup.sh" || !strings.HasPrefix(lines[1], "30 1 * * * ") ||
		!strings.HasSuffix(lines[1], "# mem-summarize") {
		t.Fatalf("crontab after install:\n%s", b)
	}
	run("--uninstall")
	if b, _ := os.ReadFile(tab); string(b) != "0 * * * * backup.sh\n" {
		t.Fatalf("crontab after uninstall:\n%s", b)
	}
}
