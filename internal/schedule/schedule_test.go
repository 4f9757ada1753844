package schedule

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/memhq/mem/internal/memory"
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
	for _, want := range []string{`"umask 077 && mkdir -p '/l' && { date -u; '/opt/a \"b\" $$HOME\\c 100%%/mem' summarize --pending --db '/d/it'\\''s.db'; }`} {
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
		plan, err := Install(Launchd, j, p)
		if err != nil {
			t.Fatal(err)
		}
		changed, err := Apply(ctx, plan, run, false)
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
	plan, err := Install(Schtasks, j, Places{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"schtasks", "/Create", "/F", "/SC", "DAILY", "/TN", Name, "/ST", "03:07", "/TR",
		`cmd /c md "C:\Users\a b\AppData\Local\mem\logs" 2>nul & ` +
			`"C:\Users\a b\AppData\Roaming\npm\node_modules\@memhq\mem-win32-x64\bin\mem.exe" summarize --pending --db "D:\mem\mem.db"` +
			` >>"C:\Users\a b\AppData\Local\mem\logs\summarize.log" 2>&1`}
	if len(plan.Commands) != 1 || strings.Join(plan.Commands[0], "\n") != strings.Join(want, "\n") {
		t.Errorf("schtasks command\n%q\nwant\n%q", plan.Commands, want)
	}
	// npm's place for the binary, a database, the default log: the line
	// must fit what schtasks takes.
	if n := len(want[len(want)-1]); n > MaxTaskLine {
		t.Errorf("the task line has %d characters, schtasks takes %d", n, MaxTaskLine)
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
	plan, err := Install(Launchd, Job{Mem: "/usr/local/bin/mem", Log: "/Users/a/Library/Logs/mem/summarize.log", Hour: 3, Minute: 17}, p)
	if err != nil {
		t.Fatal(err)
	}
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

// schtasks takes a task line (/TR) of at most 261 characters: a line that
// fits is passed as it is, one longer is refused with what to do, counted
// in UTF-16 code units as Windows counts them.
func TestWindowsTaskLineLimit(t *testing.T) {
	log := `C:\Users\someone\AppData\Local\mem\summarize.log`
	short := `C:\mem\mem.exe`
	// The line around the paths: cmd /c md "<dir>" 2>nul & "<mem>" summarize --pending >>"<log>" 2>&1
	base := len(Job{Log: `C:\l`}.windowsCommand()) // with an empty --mem
	fixed := base - len(`C:\l`) - len(`C:`)
	room := MaxTaskLine - base // for --mem, with that log
	for _, c := range []struct {
		name    string
		j       Job
		wantLen int // 0: refused
	}{
		{"default paths", Job{Mem: short, Log: log}, fixed + len(short) + len(log) + len(`C:\Users\someone\AppData\Local\mem`)},
		{"exactly the limit", Job{Mem: `C:\` + strings.Repeat("m", room-len(`C:\`)), Log: `C:\l`}, MaxTaskLine},
		{"one over", Job{Mem: `C:\` + strings.Repeat("m", room-len(`C:\`)+1), Log: `C:\l`}, 0},
		{"a long binary path", Job{Mem: `C:\` + strings.Repeat(`deep\`, 45) + "mem.exe", Log: log}, 0},
		{"a long database path", Job{Mem: short, Log: log, DB: `D:\` + strings.Repeat(`data\`, 40) + "mem.db"}, 0},
		// Counted as Windows counts: é is 2 bytes but 1 code unit, 😀 2 code units.
		{"one code unit a rune", Job{Mem: `C:\` + strings.Repeat("é", room-len(`C:\`)), Log: `C:\l`}, MaxTaskLine},
		{"two code units a rune", Job{Mem: `C:\` + strings.Repeat("\U0001F600", (room-len(`C:\`))/2+1), Log: `C:\l`}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan, err := Install(Schtasks, c.j, Places{})
			if c.wantLen == 0 {
				if err == nil || !memory.IsInvalid(err) || !strings.Contains(err.Error(), "at most 261 characters") ||
					!strings.Contains(err.Error(), "--log") || len(plan.Commands) != 0 {
					t.Errorf("a line over the limit: %v, commands %q", err, plan.Commands)
				}
				return
			}
			if err != nil || len(plan.Commands) != 1 {
				t.Fatalf("refused a line that fits: %v", err)
			}
			line := plan.Commands[0][len(plan.Commands[0])-1]
			if n := len(utf16.Encode([]rune(line))); n != c.wantLen || n > MaxTaskLine {
				t.Errorf("line of %d characters, want %d: %s", n, c.wantLen, line)
			}
		})
	}
}
