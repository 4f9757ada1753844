package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/switches"
)

// newSwitchCmd builds `mem enable` and `mem disable`: a project turns mem's
// injection and capture on or off for itself in the .mem file at its root.
func newSwitchCmd(app *App, on bool) *cobra.Command {
	verb, what := "disable", "Stop injecting memory into and capturing from this project's sessions"
	if on {
		verb, what = "enable", "Let mem inject into and capture from this project's sessions again"
	}
	return &cobra.Command{
		Use:       verb + " [inject|capture]",
		Short:     what + " (the .mem file at the project root)",
		Long:      what + ". The choice is kept in .mem at the project root (commit it to share it); with inject or capture, only that part changes. `mem config show` says what applies and why. A .mem that is a link, FIFO or device is refused.",
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: []string{"inject", "capture"},
		RunE: func(cmd *cobra.Command, args []string) error {
			part := ""
			if len(args) == 1 {
				part = args[0]
				if part != "inject" && part != "capture" {
					return Invalid("part", "inject or capture (or nothing for both)", part)
				}
			}
			return runSwitch(app, on, part)
		},
	}
}

func runSwitch(app *App, on bool, part string) error {
	id, err := app.Project()
	if err != nil {
		return err
	}
	f, err := switches.ReadFile(id.Root)
	if err != nil && f.Path == "" {
		return err
	}
	inject, capture := f.Inject, f.Capture
	if part == "" || part == "inject" {
		inject = on
	}
	if part == "" || part == "capture" {
		capture = on
	}
	path, err := switches.WriteFile(id.Root, inject, capture)
	if err != nil {
		return err
	}
	d := switches.Decide(SwitchSettings(app.Config(), app.Getenv), id.Root)
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"file": path, "project": id.Key, "switches": d})
	}
	fmt.Fprintf(app.Text(), "project %s (%s)\n", id.Key, path)
	writeSwitches(app, d)
	return nil
}

// writeSwitches prints whether injection and capture apply, and why not.
func writeSwitches(app *App, d switches.Decision) {
	w := app.Text()
	line := func(name string, on bool, why string) {
		if on {
			fmt.Fprintf(w, "%s: on\n", name)
			return
		}
		fmt.Fprintf(w, "%s: off: %s\n", name, why)
	}
	line("injection", d.Inject, d.InjectWhy)
	line("capture", d.Capture, d.CaptureWhy)
}
