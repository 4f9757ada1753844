package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/switches"
)

func newConfigCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Inspect mem's configuration",
		Long: `Inspect mem's configuration: command-line flags over environment variables over the config file
(MEM_CONFIG, or config.toml in the config folder) over defaults. Every number and duration has a
range (for example inject.budget 1 to 1000000, recall.weight.* 0 to 1, hook.deadline 50ms to 1m): a
value outside it, or a config file that is not a regular file of at most 1 MiB, stops every command
with exit 2 and one line naming the key and the range. mem hook keeps the default of such a number,
logs the line, and goes on.`,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Show every effective setting and where it came from (flag, env, file, default)",
		Long: `Show every effective setting and where it came from (flag, env, file, default), how the
project was resolved, and whether injection and capture are on for it and why.

The config file is MEM_CONFIG, else $XDG_CONFIG_HOME/mem/config.toml (~/.config/mem/config.toml;
~/Library/Application Support/mem on macOS, %APPDATA%\mem on Windows): key = value lines under
[section] headers, for example

  [inject]
  budget = 1500

Values are shown as mem reads them (1500ms as 1.5s). The keys, with their defaults (the folders
as on Linux, following XDG_DATA_HOME and XDG_STATE_HOME; macOS uses ~/Library/Application
Support/mem and ~/Library/Logs/mem, Windows %LOCALAPPDATA%\mem and %LOCALAPPDATA%\mem\logs) and
what they accept:

` + keyReference(),
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			settings := app.cfg.All()
			id, err := app.Project()
			if err != nil {
				return err
			}
			sw := switches.Decide(SwitchSettings(app.cfg, app.Getenv), id.Root)
			if app.JSON {
				return PrintJSON(app.Out, map[string]any{"file": app.cfg.File, "settings": settings, "project": id, "switches": sw})
			}
			w := app.Text()
			fmt.Fprintf(w, "config file: %s\n", app.cfg.File)
			fmt.Fprintf(w, "project: %s (%s, root %s)\n", id.Key, id.Source, id.Root)
			writeSwitches(app, sw)
			for _, s := range settings {
				src := s.Source
				if s.Detail != "" {
					src += " " + s.Detail
				}
				fmt.Fprintf(w, "%-26s = %-40q  # %s\n", s.Key, s.Value, src)
			}
			return nil
		},
	})
	return cmd
}

// keyReference lists every key with its default, what it accepts and its
// environment variable, from the same definition config.Load reads.
func keyReference() string {
	var b strings.Builder
	for _, k := range config.Keys(config.Dirs{Data: "~/.local/share/mem", State: "~/.local/state/mem"}) {
		accepts := k.Accepts()
		if k.Env != "" {
			accepts += "; env " + k.Env
		}
		fmt.Fprintf(&b, "  %s = %q (%s)\n      %s\n", k.Name, k.Value(), accepts, k.Help)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
