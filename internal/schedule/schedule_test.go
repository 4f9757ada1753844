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
