package cli

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/config"
)

type remoteSetOptions struct {
	URLs          string
	User          string
	PasswordStdin bool
	CAFile        string
}

func newRemoteCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "remote",
		Short: "Set or show the team's rqlite cluster that mem sync uses",
	}
	var o remoteSetOptions
	set := &cobra.Command{
		Use:   "set URL[,URL...]",
		Short: "Write the cluster's node addresses (and user, password, CA) into the config file's [sync] section",
		Long: `Write the cluster's node addresses into the config file's [sync] section: every node's HTTP
address (http:// or https://), comma-separated, so that a sync fails over when a node is down. With
rqlite's -auth, give --user and the password on standard input (--password-stdin: it never appears
in the process list, and mem config show and mem remote show never print it). For https with a
private CA, --ca-file names its PEM file. A new config file is readable by its owner only.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.URLs = args[0]
			return runRemoteSet(app, cmd, o)
		},
	}
	set.Flags().StringVar(&o.User, "user", "", "user name (rqlite -auth)")
	set.Flags().BoolVar(&o.PasswordStdin, "password-stdin", false, "read the password from the first line of standard input")
	set.Flags().StringVar(&o.CAFile, "ca-file", "", "PEM file of the CA that signed the nodes' certificates")
	show := &cobra.Command{
		Use:   "show",
		Short: "Show the cluster's addresses and user (never the password)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s := app.cfg.Settings.Sync
			pw := app.cfg.Origin(&app.cfg.Settings.Sync.Password).Value
			url := app.cfg.Origin(&app.cfg.Settings.Sync.URL).Value
			if app.JSON {
				urls := []string{}
				if url != "" {
					urls = strings.Split(url, ",")
				}
				return PrintJSON(app.Out, map[string]any{"url": urls, "user": s.User, "password": pw, "ca_file": s.CAFile})
			}
			w := app.Text()
			fmt.Fprintf(w, "url: %s\nuser: %s\npassword: %s\nca_file: %s\n", url, s.User, pw, s.CAFile)
			return nil
		},
	}
	cmd.AddCommand(set, show)
	return cmd
}

func runRemoteSet(app *App, cmd *cobra.Command, o remoteSetOptions) error {
	urls, err := config.NodeURLs(o.URLs)
	if err != nil {
		return UsageErr(err)
	}
	changes := []config.Change{{Key: "sync.url", Value: strings.Join(urls, ",")}}
	if cmd.Flags().Changed("user") {
		changes = append(changes, config.Change{Key: "sync.user", Value: o.User})
	}
	if o.PasswordStdin {
		line, err := bufio.NewReader(app.In).ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			return Invalid("--password-stdin", "a password on the first line of standard input", "")
		}
		_ = err // the last line may lack its newline
		changes = append(changes, config.Change{Key: "sync.password", Value: line})
	}
	if cmd.Flags().Changed("ca-file") {
		changes = append(changes, config.Change{Key: "sync.ca_file", Value: o.CAFile})
	}
	othersRead, err := app.cfg.Update(changes)
	if err != nil {
		return UsageErr(err)
	}
	w := app.Text()
	fmt.Fprintf(w, "cluster set in %s: %s\n", app.cfg.File, strings.Join(urls, ", "))
	if othersRead && o.PasswordStdin {
		fmt.Fprintf(app.Err, "mem: warning: %s holds the cluster's password and others can read it: chmod 600 it\n", app.cfg.File)
	}
	return nil
}
