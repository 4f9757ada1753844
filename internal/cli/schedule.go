package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/schedule"
)

type scheduleOptions struct {
	Scheduler string
	At        string
	Mem       string
	Log       string
	DryRun    bool
}

func newScheduleCmd(app *App) *cobra.Command {
	var o scheduleOptions
	cmd := &cobra.Command{
		Use:   "schedule install|uninstall|status",
		Short: "Install, remove or show the nightly summarize job",
		Long: `Run mem summarize --pending every night with your own scheduler: a systemd user timer
(~/.config/systemd/user/mem-summarize.{service,timer}) where a systemd user session runs, else a
crontab line tagged "# mem-summarize"; a launchd agent on macOS
(~/Library/LaunchAgents/dev.memhq.mem.summarize.plist); a scheduled task on Windows, whose command
line schtasks holds to 261 characters (paths too long for it are refused: pass a shorter --log or
--mem). The job appends its report to a log file. Installing again with the same settings changes nothing; --dry-run prints
what would be written and run. The database the job uses is the one set by --db, MEM_DB or the
config file, when one is set.`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"install", "uninstall", "status"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSchedule(cmd.Context(), app, args[0], o, execRunner)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Scheduler, "scheduler", "", "systemd, cron, launchd or schtasks (default: the one this machine runs)")
	f.StringVar(&o.At, "at", "03:17", "time of day the job runs, local time (HH:MM)")
	f.StringVar(&o.Mem, "mem", "", "the mem binary the job runs (default: this binary)")
	f.StringVar(&o.Log, "log", "", "log file (default ~/.local/state/mem/summarize.log)")
	f.BoolVar(&o.DryRun, "dry-run", false, "print what would be written and run, change nothing")
	return cmd
}

// execRunner runs a command of the scheduler.
func execRunner(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, error) {
	c := exec.CommandContext(ctx, name, args...)
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%w: %s", err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

func runSchedule(ctx context.Context, app *App, action string, o scheduleOptions, run schedule.Runner) error {
	if action != "install" && action != "uninstall" && action != "status" {
		return Invalid("action", "install, uninstall or status", action)
	}
	at := o.At
	hour, minute, err := schedule.ParseAt(at)
	if err != nil {
		return UsageErr(err)
	}
	var s schedule.Scheduler
	if o.Scheduler != "" {
		if s, err = schedule.ParseScheduler(o.Scheduler); err != nil {
			return UsageErr(err)
		}
	} else if s, err = detectScheduler(ctx, run); err != nil {
		return err
	}
	places, err := schedulePlaces(app)
	if err != nil {
		return err
	}
	if action == "status" {
		return scheduleStatus(ctx, app, s, places, run)
	}
	var plan schedule.Plan
	if action == "install" {
		job, err := scheduleJob(app, o, hour, minute)
		if err != nil {
			return err
		}
		if plan, err = schedule.Install(s, job, places); err != nil {
			return UsageErr(err)
		}
		plan.Notes = append(plan.Notes, "log: "+job.Log)
	} else {
		plan = schedule.Uninstall(s, places)
	}
	if o.DryRun {
		return printSchedulePlan(app, plan, action)
	}
	changed, err := schedule.Apply(ctx, plan, run, action == "uninstall")
	if err != nil {
		return err
	}
	switch {
	case action == "install" && changed:
		fmt.Fprintf(app.Out, "installed the nightly job (%s) at %02d:%02d\n", s, hour, minute)
	case action == "install":
		fmt.Fprintf(app.Out, "the nightly job (%s) is already installed: nothing to change\n", s)
	case changed:
		fmt.Fprintf(app.Out, "removed the nightly job (%s)\n", s)
	default:
		fmt.Fprintf(app.Out, "no nightly job (%s) to remove\n", s)
	}
	if action == "install" && changed {
		for _, n := range plan.Notes {
			fmt.Fprintf(app.Out, "note: %s\n", n)
		}
	}
	return nil
}

// detectScheduler picks the scheduler this machine runs.
func detectScheduler(ctx context.Context, run schedule.Runner) (schedule.Scheduler, error) {
	return schedule.Detect(ctx, runtime.GOOS, run, exec.LookPath)
}

func schedulePlaces(app *App) (schedule.Places, error) {
	home := homeDir(app.Getenv)
	if home == "" {
		return schedule.Places{}, errors.New("finding the home folder: HOME is not set")
	}
	p := schedule.Places{Home: home, ConfigHome: app.Getenv("XDG_CONFIG_HOME"), UID: os.Getuid()}
	if !filepath.IsAbs(p.ConfigHome) {
		p.ConfigHome = filepath.Join(home, ".config")
	}
	return p, nil
}

func scheduleJob(app *App, o scheduleOptions, hour, minute int) (schedule.Job, error) {
	j := schedule.Job{Mem: o.Mem, Log: o.Log, Hour: hour, Minute: minute}
	if j.Mem == "" {
		exe, err := ownMem()
		if err != nil {
			return j, fmt.Errorf("finding this binary: %w; pass --mem", err)
		}
		j.Mem = exe
	}
	if abs, err := filepath.Abs(j.Mem); err == nil {
		j.Mem = abs
	}
	if j.Log == "" {
		j.Log = filepath.Join(config.UserDirs(app.Getenv).State, "summarize.log")
	}
	if db := app.cfg.Origin(&app.cfg.Settings.DB); db.Source != config.SourceDefault {
		j.DB = db.Value
		if abs, err := filepath.Abs(j.DB); err == nil {
			j.DB = abs
		}
	}
	if err := j.Check(); err != nil {
		return j, UsageErr(err)
	}
	return j, nil
}

func printSchedulePlan(app *App, plan schedule.Plan, action string) error {
	w := app.Out
	for _, f := range plan.Files {
		if f.Content == nil {
			fmt.Fprintf(w, "# would remove %s\n", f.Path)
			continue
		}
		fmt.Fprintf(w, "# %s\n%s\n", f.Path, f.Content)
	}
	if plan.Crontab != nil {
		if line := plan.Crontab(nil); len(line) > 0 {
			fmt.Fprintf(w, "# crontab line:\n%s", line)
		} else {
			fmt.Fprintf(w, "# would remove the crontab line ending in \"# %s\"\n", schedule.Name)
		}
	}
	for _, c := range plan.Commands {
		fmt.Fprintf(w, "# would run: %s\n", strings.Join(c, " "))
	}
	if action == "install" {
		for _, n := range plan.Notes {
			fmt.Fprintf(w, "# %s\n", n)
		}
	}
	return nil
}

func scheduleStatus(ctx context.Context, app *App, s schedule.Scheduler, places schedule.Places, run schedule.Runner) error {
	installed, where := false, ""
	switch s {
	case schedule.Cron:
		tab, _ := run(ctx, nil, "crontab", "-l")
		installed, where = schedule.HasCronLine(tab), "crontab"
	case schedule.Schtasks:
		_, err := run(ctx, nil, "schtasks", "/Query", "/TN", schedule.Name)
		installed, where = err == nil, "task "+schedule.Name
	default:
		files := schedule.Files(s, places)
		installed, where = true, strings.Join(files, ", ")
		for _, f := range files {
			if _, err := os.Lstat(f); err != nil {
				installed = false
			}
		}
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"scheduler": s, "installed": installed, "where": where})
	}
	if installed {
		fmt.Fprintf(app.Out, "nightly job: installed (%s: %s)\n", s, where)
	} else {
		fmt.Fprintf(app.Out, "nightly job: not installed (%s); mem schedule install adds it\n", s)
	}
	return nil
}
