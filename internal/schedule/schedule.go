// Package schedule installs, removes and reports the nightly
// `mem summarize --pending` job with the user's own scheduler: a systemd
// user timer, a crontab line, a launchd agent or a Windows scheduled task.
//
// What a scheduler gets is computed by pure functions (Install and Uninstall
// return a Plan); Apply carries a plan out through an injected Runner, so
// tests see exactly what would be written and run.
package schedule

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/text"
)

// Scheduler names a scheduler.
type Scheduler string

// The schedulers mem knows.
const (
	Systemd  Scheduler = "systemd"
	Cron     Scheduler = "cron"
	Launchd  Scheduler = "launchd"
	Schtasks Scheduler = "schtasks"
)

// Schedulers lists them, for usage messages.
var Schedulers = []Scheduler{Systemd, Cron, Launchd, Schtasks}

// Name is the job's name: the systemd unit, the crontab line's tag and the
// Windows task.
const Name = "mem-summarize"

// Label is the launchd agent's label.
const Label = "dev.memhq.mem.summarize"

// Job is what runs every night.
type Job struct {
	Mem          string // absolute path of the mem binary
	DB           string // database passed as --db ("" for mem's default)
	Log          string // file the run's report is appended to
	Hour, Minute int    // local time of day
}

// Places are the folders the job's files go to.
type Places struct {
	Home       string
	ConfigHome string // $XDG_CONFIG_HOME, else ~/.config
	UID        int    // the user's id, for launchd's gui/UID domain
}

func (p Places) systemdDir() string { return filepath.Join(p.ConfigHome, "systemd", "user") }
func (p Places) domain() string     { return fmt.Sprintf("gui/%d", p.UID) }
func (p Places) plist() string {
	return filepath.Join(p.Home, "Library", "LaunchAgents", Label+".plist")
}

// File is a file a plan writes (Content) or removes (Content nil).
type File struct {
	Path    string
	Content []byte
}

// Plan is what installing or removing the job takes: files, then commands.
// Crontab, when set, turns the current crontab into the new one.
type Plan struct {
	Scheduler Scheduler
	Files     []File
	Crontab   func(current []byte) []byte
	Commands  [][]string
	Notes     []string
}

// ParseAt reads a time of day HH:MM (H:MM too), digits only.
func ParseAt(s string) (hour, minute int, err error) {
	bad := memory.Invalid("--at", "a time HH:MM such as 03:17", s)
	h, m, ok := strings.Cut(s, ":")
	if !ok || len(m) != 2 || len(h) < 1 || len(h) > 2 || !digits(h) || !digits(m) {
		return 0, 0, bad
	}
	hour, _ = strconv.Atoi(h)
	minute, _ = strconv.Atoi(m)
	if hour > 23 || minute > 59 {
		return 0, 0, bad
	}
	return hour, minute, nil
}

func digits(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// ParseScheduler reads a scheduler's name.
func ParseScheduler(s string) (Scheduler, error) {
	for _, k := range Schedulers {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, len(Schedulers))
	for i, k := range Schedulers {
		names[i] = string(k)
	}
	return "", memory.Invalid("--scheduler", "one of "+strings.Join(names, ", "), s)
}

// Check refuses paths that no scheduler's file format can carry safely.
func (j Job) Check() error {
	for _, f := range []struct{ name, v string }{{"--mem", j.Mem}, {"database (--db, MEM_DB or db in the config)", j.DB}, {"--log", j.Log}} {
		if strings.IndexFunc(f.v, unicode.IsControl) >= 0 {
			return memory.Invalid(f.name, "a path without control characters", f.v)
		}
	}
	if !filepath.IsAbs(j.Mem) {
		return memory.Invalid("--mem", "an absolute path of the mem binary", j.Mem)
	}
	if !filepath.IsAbs(j.Log) {
		return memory.Invalid("--log", "an absolute path", j.Log)
	}
	return nil
}

// Shell is the sh command of the job: a date line, then the run's report,
// appended to the log. The umask keeps the log folder and file, made by the
// shell, private to the user, as mem's own files are.
func (j Job) Shell() string {
	args := "summarize --pending"
	if j.DB != "" {
		args += " --db " + text.ShellQuote(j.DB)
	}
	return fmt.Sprintf("umask 077 && mkdir -p %s && { date -u; %s %s; } >>%s 2>&1", text.ShellQuote(filepath.Dir(j.Log)), text.ShellQuote(j.Mem), args, text.ShellQuote(j.Log))
}

// Install returns the plan that installs j with s, or a validation error
// when s cannot carry j (a task line over schtasks' limit).
func Install(s Scheduler, j Job, p Places) (Plan, error) {
	plan := Plan{Scheduler: s}
	switch s {
	case Systemd:
		dir := p.systemdDir()
		plan.Files = []File{
			{filepath.Join(dir, Name+".service"), []byte(j.service())},
			{filepath.Join(dir, Name+".timer"), []byte(j.timer())},
		}
		plan.Commands = [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", Name + ".timer"}}
		plan.Notes = []string{"user timers run while you are logged in unless lingering is on (loginctl enable-linger)"}
	case Cron:
		line := j.cronLine()
		plan.Crontab = func(cur []byte) []byte { return append(withoutOurs(cur), line...) }
	case Launchd:
		plan.Files = []File{{p.plist(), []byte(j.plist())}}
		plan.Commands = [][]string{{"launchctl", "bootout", p.domain(), p.plist()}, {"launchctl", "bootstrap", p.domain(), p.plist()}}
	case Schtasks:
		line := j.windowsCommand()
		if n := len(utf16.Encode([]rune(line))); n > MaxTaskLine {
			return plan, memory.Invalid("--mem, --log and database paths",
				fmt.Sprintf("short enough for a task line of at most %d characters (schtasks /TR), this one has %d: "+
					`pass a shorter --log (such as C:\mem\summarize.log) or --mem`, MaxTaskLine, n), "")
		}
		plan.Commands = [][]string{{"schtasks", "/Create", "/F", "/SC", "DAILY", "/TN", Name,
			"/ST", fmt.Sprintf("%02d:%02d", j.Hour, j.Minute), "/TR", line}}
	}
	return plan, nil
}

// MaxTaskLine is the most characters (UTF-16 code units) schtasks takes
// in a task's command line (/TR).
const MaxTaskLine = 261

// Uninstall returns the plan that removes the job from s.
func Uninstall(s Scheduler, p Places) Plan {
	plan := Plan{Scheduler: s}
	switch s {
	case Systemd:
		dir := p.systemdDir()
		plan.Commands = [][]string{{"systemctl", "--user", "disable", "--now", Name + ".timer"}}
		plan.Files = []File{{Path: filepath.Join(dir, Name+".service")}, {Path: filepath.Join(dir, Name+".timer")}}
	case Cron:
		plan.Crontab = withoutOurs
	case Launchd:
		plan.Commands = [][]string{{"launchctl", "bootout", p.domain(), p.plist()}}
		plan.Files = []File{{Path: p.plist()}}
	case Schtasks:
		plan.Commands = [][]string{{"schtasks", "/Delete", "/F", "/TN", Name}}
	}
	return plan
}

// Files lists the files the job of s lives in.
func Files(s Scheduler, p Places) []string {
	var out []string
	for _, f := range Uninstall(s, p).Files {
		out = append(out, f.Path)
	}
	return out
}

func (j Job) service() string {
	// systemd reads %, $, \ and " inside a quoted ExecStart argument.
	cmd := strings.NewReplacer(`%`, `%%`, `$`, `$$`, `\`, `\\`, `"`, `\"`).Replace(j.Shell())
	return `[Unit]
Description=mem: summarize pending agent sessions

[Service]
Type=oneshot
Nice=10
ExecStart=/bin/sh -c "` + cmd + `"
`
}

func (j Job) timer() string {
	return fmt.Sprintf(`[Unit]
Description=mem: summarize pending agent sessions every night

[Timer]
OnCalendar=*-*-* %02d:%02d:00
Persistent=true
RandomizedDelaySec=10m

[Install]
WantedBy=timers.target
`, j.Hour, j.Minute)
}

// cronTag ends the crontab line mem owns.
const cronTag = " # " + Name

func (j Job) cronLine() string {
	// cron reads % as a line break.
	return fmt.Sprintf("%d %d * * * %s%s\n", j.Minute, j.Hour, strings.ReplaceAll(j.Shell(), "%", `\%`), cronTag)
}

// withoutOurs returns a crontab without mem's line, every other line as it
// was, ending in a newline when it has any line.
func withoutOurs(cur []byte) []byte {
	var b bytes.Buffer
	lines := strings.SplitAfter(string(cur), "\n")
	for _, l := range lines {
		if l == "" || strings.HasSuffix(strings.TrimRight(l, "\n"), cronTag) {
			continue
		}
		b.WriteString(l)
	}
	if b.Len() > 0 && !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// HasCronLine reports whether a crontab holds mem's line.
func HasCronLine(tab []byte) bool {
	for _, l := range strings.Split(string(tab), "\n") {
		if strings.HasSuffix(l, cronTag) {
			return true
		}
	}
	return false
}

func (j Job) plist() string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>%s</string>
	<key>ProgramArguments</key>
	<array>
		<string>/bin/sh</string>
		<string>-c</string>
		<string>%s</string>
	</array>
	<key>StartCalendarInterval</key>
	<dict>
		<key>Hour</key>
		<integer>%d</integer>
		<key>Minute</key>
		<integer>%d</integer>
	</dict>
	<key>ProcessType</key>
	<string>Background</string>
</dict>
</plist>
`, Label, text.EscapeXML(j.Shell()), j.Hour, j.Minute)
}

// windowsCommand is the task's command line: cmd makes the log's folder
// (md of a folder that exists fails, quietly), runs mem and appends its
// report to the log. Each path is written once, as the line may hold only
// MaxTaskLine characters. It begins with "md", not a quote: cmd /c drops
// the first and last quote of a line that begins with one and holds more
// than two.
func (j Job) windowsCommand() string {
	dir := `"` + j.Log[:max(strings.LastIndexAny(j.Log, `\/`), 0)] + `"`
	args := `"` + j.Mem + `" summarize --pending`
	if j.DB != "" {
		args += ` --db "` + j.DB + `"`
	}
	return `cmd /c md ` + dir + ` 2>nul & ` + args + ` >>"` + j.Log + `" 2>&1`
}

// Detect picks the scheduler of goos: launchd on darwin, the task
// scheduler on windows, elsewhere a systemd user session when systemctl
// answers, else cron when crontab is on PATH (lookPath finds it).
func Detect(ctx context.Context, goos string, run Runner, lookPath func(string) (string, error)) (Scheduler, error) {
	switch goos {
	case "darwin":
		return Launchd, nil
	case "windows":
		return Schtasks, nil
	}
	if _, err := run(ctx, nil, "systemctl", "--user", "show-environment"); err == nil {
		return Systemd, nil
	}
	if _, err := lookPath("crontab"); err == nil {
		return Cron, nil
	}
	return "", errors.New("found no scheduler (a systemd user session or crontab); pass --scheduler")
}

// Runner runs a command with stdin and returns its standard output; a
// failure's error holds what the command wrote to its standard error.
type Runner func(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, error)

// Apply carries out a plan: files are written beside their targets and
// renamed into place (links and special files refused) or removed, the
// crontab is rewritten, and the commands run. Installing runs the commands
// only when something changed (a task scheduler keeps no file to compare:
// its command always runs); removing runs them first, to stop the job, and
// their failure (a job that was not there) is no error. It reports whether
// anything changed.
func Apply(ctx context.Context, plan Plan, run Runner, uninstall bool) (changed bool, err error) {
	if uninstall {
		for _, c := range plan.Commands {
			if _, err := run(ctx, nil, c[0], c[1:]...); err == nil && plan.Scheduler == Schtasks {
				changed = true
			}
		}
	}
	for _, f := range plan.Files {
		c, err := applyFile(f)
		if err != nil {
			return changed, err
		}
		changed = changed || c
	}
	if plan.Crontab != nil {
		cur, err := run(ctx, nil, "crontab", "-l")
		if err != nil {
			// Only "no crontab for USER" means an empty one: on any other
			// failure, writing would replace the user's crontab with ours.
			if !strings.Contains(err.Error(), "no crontab") {
				return changed, fmt.Errorf("reading the crontab: %w", err)
			}
			cur = nil
		}
		if next := plan.Crontab(cur); !bytes.Equal(cur, next) {
			if _, err := run(ctx, next, "crontab", "-"); err != nil {
				return changed, fmt.Errorf("writing the crontab: %w", err)
			}
			changed = true
		}
	}
	if uninstall {
		if changed && plan.Scheduler == Systemd {
			run(ctx, nil, "systemctl", "--user", "daemon-reload")
		}
		return changed, nil
	}
	if !changed && plan.Scheduler != Schtasks {
		return false, nil
	}
	for _, c := range plan.Commands {
		out, err := run(ctx, nil, c[0], c[1:]...)
		if err != nil && !(c[0] == "launchctl" && c[1] == "bootout") { // bootout of an agent not loaded fails
			return true, fmt.Errorf("running %s: %w: %s", strings.Join(c, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return true, nil
}

// applyFile writes or removes one file and reports whether it changed.
func applyFile(f File) (bool, error) {
	cur, err := fsafe.ReadFile(f.Path, 1<<20)
	exists := err == nil
	if _, err := fsafe.CheckTarget(f.Path); err != nil {
		return false, err
	}
	if f.Content == nil {
		if !exists {
			return false, nil
		}
		return true, fsafe.Remove(f.Path)
	}
	if exists && bytes.Equal(cur, f.Content) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return false, err
	}
	return true, fsafe.WriteFile(f.Path, f.Content, 0o644)
}
