package fullcli

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/cli"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/switches"
	"github.com/memhq/mem/internal/web"
)

type webOptions struct {
	Addr        string // empty: [web] addr
	NoOpen      bool
	AllowRemote bool
	NewToken    bool
}

func newWebCmd(app *cli.App) *cobra.Command {
	var o webOptions
	cmd := &cobra.Command{
		Use:   "web [--addr 127.0.0.1:7411] [--no-open] [--allow-remote] [--new-token]",
		Short: cli.FullShort("web"),
		Long: `Serve a viewer of the memory while the command runs (Ctrl-C stops it), print its URL and open
it in the browser (through a page only you can read, so that the token is on no command line). Pages: an overview (the newest records of every project, projects, sessions, observations per
day), a project (sessions, switches, search with mem search's filters), search across projects, a
session's timeline and pending context, an observation (edit, forget), what the agent sees (the
exact mem inject block, each entry's score and factors, the token budget), the effective settings
and the hook log (read-only). Every page has a project switcher and a search box, and follows new
memory live.

The address is --addr, else [web] addr (MEM_WEB_ADDR), else 127.0.0.1:7411; when the default port
is taken, mem web says so and serves on a free port instead (an address you set that is taken is an
error). The token is kept in [web] token_file (0600, in the state folder) so that the address and
its cookie survive restarts: a bookmark keeps working. --new-token replaces it, and every browser
that had the old one must open the new URL.

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
	f.StringVar(&o.Addr, "addr", "", "address to listen on, host:port (port 0: any free port; default: [web] addr, else "+config.DefaultWebAddr+")")
	f.BoolVar(&o.NewToken, "new-token", false, "replace the kept token: the old URL and cookies stop working")
	f.BoolVar(&o.NoOpen, "no-open", false, "print the URL without opening a browser")
	f.BoolVar(&o.AllowRemote, "allow-remote", false, "allow an address other than loopback (still token protected)")
	return cmd
}

func runWeb(ctx context.Context, app *cli.App, o webOptions) error {
	cfg := app.Config()
	// Only the default address falls back to a free port: one that was
	// asked for is served or refused.
	field, fallback := "--addr", false
	if o.Addr == "" {
		o.Addr = cfg.Settings.Web.Addr
		origin := cfg.Origin(&cfg.Settings.Web.Addr)
		field = "web.addr (" + origin.From() + ")"
		fallback = origin.Source == config.SourceDefault
	}
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return cli.Invalid(field, "host:port, for example 127.0.0.1:8080", o.Addr)
	}
	if ip := net.ParseIP(host); !o.AllowRemote && (ip == nil || !ip.IsLoopback()) {
		return cli.Invalid(field, "a loopback address such as 127.0.0.1:0 (or give --allow-remote)", o.Addr)
	}
	// The current project, when there is one, is where switches are written.
	id, err := app.Project()
	if err != nil {
		id = project.Identity{}
	}
	db, err := app.ReadStore(ctx)
	if err != nil {
		return err
	}
	l, err := listen(o.Addr, fallback, app.Err)
	if err != nil {
		return cli.Invalid(field, "an address this machine can listen on", o.Addr+": "+cli.RootCause(err))
	}
	defer l.Close()
	token, state, err := web.KeepToken(cfg.Settings.Web.TokenFile, o.NewToken)
	if err != nil {
		return err
	}
	if state != web.TokenKept {
		fmt.Fprintf(app.Err, "mem web: %s; kept in %s\n", state, cfg.Settings.Web.TokenFile)
	}
	srv, err := web.New(web.Options{
		DB: db, Recall: recall.SettingsFrom(cfg.Settings), Current: id, Now: app.Now, Token: token, Config: cfg,
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

// listen listens on addr; when it is taken and fallback is set, on a free
// port of the same host instead, saying so on w.
func listen(addr string, fallback bool, w io.Writer) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err == nil || !fallback {
		return l, err
	}
	host, _, _ := net.SplitHostPort(addr)
	free, ferr := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if ferr != nil {
		return nil, err
	}
	fmt.Fprintf(w, "mem web: %s is taken (%s); serving on %s instead (set [web] addr for an address of your own)\n",
		addr, cli.RootCause(err), free.Addr())
	return free, nil
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
