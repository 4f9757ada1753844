package schedule

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseAt(t *testing.T) {
	for _, c := range []struct {
		in     string
		h, m   int
		wantOK bool
	}{
		{"03:17", 3, 17, true}, {"4:05", 4, 5, true}, {"23:59", 23, 59, true}, {"0:00", 0, 0, true},
		{"24:00", 0, 0, false}, {"12:60", 0, 0, false}, {"12:5", 0, 0, false}, {"-1:10", 0, 0, false},
		{"", 0, 0, false}, {"noon", 0, 0, false}, {"1:2:3", 0, 0, false}, {"123:00", 0, 0, false},
	} {
		h, m, err := ParseAt(c.in)
		if (err == nil) != c.wantOK || (c.wantOK && (h != c.h || m != c.m)) {
			t.Errorf("ParseAt(%q) = %d, %d, %v", c.in, h, m, err)
		}
	}
}

// Whatever a path holds, each scheduler's file carries it as one word of
// the job's shell command.
func TestQuoting(t *testing.T) {
	j := Job{Mem: `/opt/a "b" $HOME\c 100%/mem`, DB: `/d/it's.db`, Log: "/l/x.log", Hour: 1, Minute: 2}
	svc := j.service()
	for _, want := range []string{`"mkdir -p '/l' && { date -u; '/opt/a \"b\" $$HOME\\c 100%%/mem' summarize --pending --db '/d/it'\\''s.db'; }`} {
		if !strings.Contains(svc, want) {
			t.Errorf("service lacks %s:\n%s", want, svc)
		}
	}
	if line := j.cronLine(); !strings.Contains(line, `100\%/mem`) || strings.Count(line, "\n") != 1 {
		t.Errorf("cron line %q", line)
	}
	if p := j.plist(); !strings.Contains(p, "&amp;&amp; { date -u;") || strings.Contains(p, "&& {") {
		t.Errorf("plist does not escape the command:\n%s", p)
	}
	if err := (Job{Mem: "/m\n* * * * * evil", Log: "/l"}).Check(); err == nil {
		t.Error("a newline in a path is accepted")
	}
	if err := (Job{Mem: "mem", Log: "/l"}).Check(); err == nil {
		t.Error("a relative binary is accepted")
	}
}

// Apply writes only what changed and runs the scheduler's commands only
// then; removing stops the job first.
func TestApply(t *testing.T) {
	dir := t.TempDir()
	p := Places{Home: dir, ConfigHome: filepath.Join(dir, ".config"), UID: 501}
	var ran []string
	run := func(_ context.Context, _ []byte, name string, args ...string) ([]byte, error) {
		ran = append(ran, name+" "+strings.Join(args, " "))
		return nil, nil
	}
	j := Job{Mem: "/bin/mem", Log: "/l/s.log", Hour: 3, Minute: 17}
	ctx := context.Background()
	for i, want := range []bool{true, false} {
		ran = nil
		changed, err := Apply(ctx, Install(Launchd, j, p), run, false)
		if err != nil || changed != want {
			t.Fatalf("install %d: changed %v, err %v", i, changed, err)
		}
		if want && (len(ran) != 2 || ran[1] != "launchctl bootstrap gui/501 "+p.plist()) {
			t.Errorf("install ran %q", ran)
		}
		if !want && len(ran) != 0 {
			t.Errorf("unchanged install ran %q", ran)
		}
	}
	ran = nil
	if changed, err := Apply(ctx, Uninstall(Launchd, p), run, true); err != nil || !changed {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	if _, err := os.Stat(p.plist()); !os.IsNotExist(err) {
		t.Errorf("plist still there: %v", err)
	}
	if len(ran) != 1 || !strings.HasPrefix(ran[0], "launchctl bootout") {
		t.Errorf("uninstall ran %q", ran)
	}
}

// Each OS gets its own scheduler; on Linux, the one that answers.
func TestDetect(t *testing.T) {
	ok := func(context.Context, []byte, string, ...string) ([]byte, error) { return nil, nil }
	fails := func(context.Context, []byte, string, ...string) ([]byte, error) { return nil, os.ErrNotExist }
	found := func(string) (string, error) { return "/usr/bin/crontab", nil }
	missing := func(string) (string, error) { return "", os.ErrNotExist }
	for _, c := range []struct {
		goos     string
		run      Runner
		lookPath func(string) (string, error)
		want     Scheduler
	}{
		{"darwin", fails, missing, Launchd},
		{"windows", fails, missing, Schtasks},
		{"linux", ok, found, Systemd},
		{"linux", fails, found, Cron},
		{"freebsd", fails, found, Cron},
		{"linux", fails, missing, ""},
	} {
		got, err := Detect(context.Background(), c.goos, c.run, c.lookPath)
		if got != c.want || (err == nil) != (c.want != "") {
			t.Errorf("Detect(%s) = %q, %v; want %q", c.goos, got, err, c.want)
		}
	}
}

// Windows: the task runs cmd, which makes the log's folder first; the line
// does not begin with a quote, which cmd /c would strip.
func TestWindowsTask(t *testing.T) {
	j := Job{Mem: `C:\Users\a b\AppData\Roaming\npm\node_modules\@memhq\mem-win32-x64\bin\mem.exe`,
		DB: `D:\mem\mem.db`, Log: `C:\Users\a b\AppData\Local\mem\logs\summarize.log`, Hour: 3, Minute: 7}
	plan := Install(Schtasks, j, Places{})
	want := []string{"schtasks", "/Create", "/F", "/SC", "DAILY", "/TN", Name, "/ST", "03:07", "/TR",
		`cmd /c if not exist "C:\Users\a b\AppData\Local\mem\logs" mkdir "C:\Users\a b\AppData\Local\mem\logs" & ` +
			`"C:\Users\a b\AppData\Roaming\npm\node_modules\@memhq\mem-win32-x64\bin\mem.exe" summarize --pending --db "D:\mem\mem.db"` +
			` >> "C:\Users\a b\AppData\Local\mem\logs\summarize.log" 2>&1`}
	if len(plan.Commands) != 1 || strings.Join(plan.Commands[0], "\n") != strings.Join(want, "\n") {
		t.Errorf("schtasks command\n%q\nwant\n%q", plan.Commands, want)
	}
	if len(plan.Files) != 0 {
		t.Errorf("the task scheduler keeps no file of mem's: %v", plan.Files)
	}
	if u := Uninstall(Schtasks, Places{}); strings.Join(u.Commands[0], " ") != "schtasks /Delete /F /TN "+Name {
		t.Errorf("uninstall: %v", u.Commands)
	}
}

// macOS: a launchd agent in ~/Library/LaunchAgents, loaded into the user's
// GUI domain.
func TestLaunchdPlaces(t *testing.T) {
	p := Places{Home: "/Users/a", ConfigHome: "/Users/a/.config", UID: 501}
	plan := Install(Launchd, Job{Mem: "/usr/local/bin/mem", Log: "/Users/a/Library/Logs/mem/summarize.log", Hour: 3, Minute: 17}, p)
	plist := "/Users/a/Library/LaunchAgents/" + Label + ".plist"
	if len(plan.Files) != 1 || plan.Files[0].Path != plist {
		t.Fatalf("files %v, want %s", plan.Files, plist)
	}
	for _, want := range []string{"<key>Hour</key>\n\t\t<integer>3</integer>", "<key>Minute</key>\n\t\t<integer>17</integer>",
		"&gt;&gt;'/Users/a/Library/Logs/mem/summarize.log'"} {
		if !strings.Contains(string(plan.Files[0].Content), want) {
			t.Errorf("plist lacks %q:\n%s", want, plan.Files[0].Content)
		}
	}
	if got := strings.Join(plan.Commands[1], " "); got != "launchctl bootstrap gui/501 "+plist {
		t.Errorf("load command %q", got)
	}
}
