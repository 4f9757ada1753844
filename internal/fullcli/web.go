package fullcli

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/cli"
	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/switches"
	"github.com/memhq/mem/internal/web"
)

type webOptions struct {
	Addr        string
	NoOpen      bool
	AllowRemote bool
}

func newWebCmd(app *cli.App) *cobra.Command {
	var o webOptions
	cmd := &cobra.Command{
		Use:   "web [--addr 127.0.0.1:0] [--no-open] [--allow-remote]",
		Short: cli.FullShort("web"),
		Long: `Serve a viewer of the memory while the command runs (Ctrl-C stops it), print its URL and open
it in the browser (through a page only you can read, so that the token is on no command line). Pages: an overview (projects, sessions, observations per day), a project
(sessions, switches, search with mem search's filters), a session's timeline and pending context,
an observation (edit, forget) and what the agent sees (the exact mem inject block, each entry's
score and factors, the token budget). Pages follow new memory live.

It listens on 127.0.0.1 only unless --allow-remote is given. Every request needs the random token
of the printed URL (kept in a cookie after the first page); the Host and Origin headers must name
this server, and changes are POST forms with a CSRF token. Stored text is escaped, and its control
characters are shown as visible escapes such as \x1b.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runWeb(ctx, app, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Addr, "addr", "127.0.0.1:0", "address to listen on, host:port (port 0: any free port)")
	f.BoolVar(&o.NoOpen, "no-open", false, "print the URL without opening a browser")
	f.BoolVar(&o.AllowRemote, "allow-remote", false, "allow an address other than loopback (still token protected)")
	return cmd
}

func runWeb(ctx context.Context, app *cli.App, o webOptions) error {
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return cli.Invalid("--addr", "host:port, for example 127.0.0.1:8080", o.Addr)
	}
	if ip := net.ParseIP(host); !o.AllowRemote && (ip == nil || !ip.IsLoopback()) {
		return cli.Invalid("--addr", "a loopback address such as 127.0.0.1:0 (or give --allow-remote)", o.Addr)
	}
	// The current project, when there is one, is where switches are written.
	id, err := app.Project()
	if err != nil {
		id = project.Identity{}
	}
	db, err := app.Store(ctx)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return cli.Invalid("--addr", "an address this machine can listen on", o.Addr+": "+cli.RootCause(err))
	}
	defer l.Close()
	cfg := app.Config()
	srv, err := web.New(web.Options{
		DB: db, Recall: recall.SettingsFrom(cfg.Settings), Current: id, Now: app.Now,
		Switches:      func(root string) switches.Decision { return switches.Decide(cli.SwitchSettings(cfg, app.Getenv), root) },
		SourceEnabled: func(source string) bool { return remember.SourceEnabled(cfg, source) },
	}, l.Addr().String(), o.AllowRemote)
	if err != nil {
		return cli.UsageErr(err)
	}
	url := srv.URL(l.Addr().String())
	fmt.Fprintf(app.Out, "mem web: %s\n", url)
	fmt.Fprintln(app.Err, "mem web: serving until Ctrl-C")
	if !o.NoOpen {
		remove, err := openBrowser(url)
		if err != nil {
			fmt.Fprintf(app.Err, "mem web: could not open a browser (%v); open the URL above\n", err)
		}
		defer remove()
	}
	return srv.Serve(ctx, l)
}

// openBrowser asks the desktop to open url, without waiting for it and
// without putting url on a command line, where every local user could read
// its token (/proc/PID/cmdline): the opener is given the path of a page only
// this user can read, in a folder only this user can enter, which sends the
// browser on to url. remove deletes the page; call it once the server stops
// (the browser may read the page late, when it has to start first).
func openBrowser(url string) (remove func(), err error) {
	dir, err := os.MkdirTemp("", "mem-web-")
	if err != nil {
		return func() {}, err
	}
	remove = func() { os.RemoveAll(dir) }
	page := filepath.Join(dir, "open.html")
	if err := fsafe.WriteFile(page, redirectPage(url), 0o600); err != nil {
		remove()
		return func() {}, err
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", page)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", page)
	default:
		cmd = exec.Command("xdg-open", page)
	}
	if err := cmd.Start(); err != nil {
		remove()
		return func() {}, err
	}
	go cmd.Wait() //nolint:errcheck // the opener's outcome is the desktop's business
	return remove, nil
}

// redirectPage is a page that sends the browser on to url at once, leaving
// no entry of its own in the history.
func redirectPage(url string) []byte {
	attr := html.EscapeString(url)
	js, _ := json.Marshal(url) // a string always encodes
	return []byte(`<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=` + attr + `"><title>mem web</title>
<script>location.replace(` + string(js) + `)</script>
<p><a href="` + attr + `">Open mem web</a></p>
`)
}
