package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/termsafe"
)

// FullName is the binary that holds every command, mem's own and the ones
// listed in fullOnly. It is installed beside mem.
const FullName = "mem-full"

// fullOnly are the commands only mem-full links. They bring the MCP SDK and
// the network stack (net/http, TLS, html/template), whose start-up every
// other call of mem would pay: a hook, a search, an observe. mem hands them
// over to mem-full with the same command line.
var fullOnly = []struct{ name, short string }{
	{"mcp", "Serve memory to an agent over MCP (stdio)"},
	{"sync", "Push this machine's shared projects to the team's rqlite cluster and pull what others pushed"},
	{"web", "Browse, search, correct and forget memory, and see what the agent is shown, in a local web page"},
}

// FullShort is the one-line help of a command of mem-full, the same in mem's
// list of commands and in mem-full.
func FullShort(name string) string {
	for _, c := range fullOnly {
		if c.name == name {
			return c.short
		}
	}
	panic("cli: no command of mem-full named " + name)
}

// handoffCmd stands in mem for a command of mem-full: it takes its place in
// the help and runs mem-full with the whole command line; its help (mem
// help NAME) is mem-full's.
func handoffCmd(app *App, name, short string) *cobra.Command {
	run := func(ctx context.Context, args []string) error {
		if app.handedTo != "" {
			// What mem handed over to does not hold the command: a mem
			// under mem-full's name, or an old mem-full. Not again.
			return fmt.Errorf("mem %s: %s does not hold it; install the mem-full of this mem beside it", name, app.handedTo)
		}
		bin, err := app.fullBinary()
		if err != nil {
			return fmt.Errorf("mem %s: %w", name, err)
		}
		return app.handOff(ctx, bin, args)
	}
	cmd := &cobra.Command{
		Use:                name,
		Short:              short,
		DisableFlagParsing: true, // mem-full parses them, --help included
		PersistentPreRunE: func(*cobra.Command, []string) error {
			app.started = true
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return run(cmd.Context(), app.args) },
	}
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
		if err := run(c.Context(), []string{name, "--help"}); err != nil {
			fmt.Fprintln(app.Err, "mem: "+termsafe.Line(err.Error()))
		}
	})
	return cmd
}

// handoffEnv names, in the environment of what mem hands a command over
// to, the binary it handed over to, so that a stand-in reached again ends
// the chain instead of handing over in a loop.
const handoffEnv = "MEM_HANDED_TO"

// errNoFull: mem-full is neither beside mem nor on PATH.
var errNoFull = errors.New(FullName + " is not installed beside mem nor on PATH; install it where mem is (see README: Install)")

// fullBinary finds mem-full: beside this binary first, so that an install
// uses its own pair, else in the absolute folders of the app's PATH. A
// relative folder (".", "node_modules/.bin") is skipped: it would be the
// project's, and a repository must not choose what mem runs.
func (a *App) fullBinary() (string, error) {
	name := FullName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	self, _ := selfPath()
	dirs := filepath.SplitList(a.Getenv("PATH"))
	if self != "" {
		dirs = append([]string{filepath.Dir(self)}, dirs...)
	}
	for _, dir := range dirs {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || runtime.GOOS != "windows" && fi.Mode()&0o111 == 0 {
			continue
		}
		return p, nil
	}
	return "", errNoFull
}

// ownStreams reports whether the app speaks through the process's standard
// streams.
func (a *App) ownStreams() bool {
	return a.In == io.Reader(os.Stdin) && a.Out == io.Writer(os.Stdout) && a.Err == io.Writer(os.Stderr)
}

// handOffChild runs bin with args as a child on the app's streams; mem's exit
// code is the child's.
func (a *App) handOffChild(ctx context.Context, bin string, args []string) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = a.fullEnv(bin)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.In, a.Out, a.Err
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return &exitError{code: ee.ExitCode(), err: err} // the child said why
	}
	if err != nil {
		return fmt.Errorf("running %s: %w", bin, err)
	}
	return nil
}

// fullJob is mem-full with args, for a job mem starts itself (a sync, a
// check): in mem's environment, its streams not mem's.
func (a *App) fullJob(ctx context.Context, args ...string) (*exec.Cmd, error) {
	bin, err := a.fullBinary()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = a.fullEnv("")
	return cmd, nil
}

// runFull runs mem-full with args and waits for it. It is for jobs (the
// nightly sync), which log their own problems; one that ends it before it
// can (a bad setting, a newer database) is returned with its last line.
func runFull(ctx context.Context, app *App, args ...string) error {
	cmd, err := app.fullJob(ctx, args...)
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if last := lastLine(stderr.String()); last != "" {
			return fmt.Errorf("%s %s: %w: %s", cmd.Path, strings.Join(args, " "), err, last)
		}
		return fmt.Errorf("%s %s: %w", cmd.Path, strings.Join(args, " "), err)
	}
	return nil
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\r\n")
	return strings.TrimSpace(s[strings.LastIndexByte(s, '\n')+1:])
}

// fullEnv is the environment mem-full starts with: this process's, with
// the configuration file the app was given and, for a hand-over to
// handedTo, the mark that stops a loop. Earlier values of both go, so that
// each is there once.
func (a *App) fullEnv(handedTo string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != handoffEnv && k != "MEM_CONFIG" {
			env = append(env, kv)
		}
	}
	if c := a.Getenv("MEM_CONFIG"); c != "" {
		env = append(env, "MEM_CONFIG="+c)
	}
	if handedTo != "" {
		env = append(env, handoffEnv+"="+handedTo)
	}
	return env
}

// ownMem is the binary hooks and jobs should run: this one (links
// resolved), or, when this is mem-full, the mem beside it, whose calls start
// without what only mem-full links.
func ownMem() (string, error) {
	self, err := selfPath()
	if err != nil {
		return "", err
	}
	name := filepath.Base(self)
	base := strings.TrimSuffix(name, ".exe")
	if base != FullName {
		return self, nil
	}
	mem := filepath.Join(filepath.Dir(self), "mem"+strings.TrimPrefix(name, base))
	if fi, err := os.Stat(mem); err == nil && fi.Mode().IsRegular() {
		return mem, nil
	}
	return self, nil
}

// selfPath is this binary's path, links resolved.
func selfPath() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	return self, nil
}
