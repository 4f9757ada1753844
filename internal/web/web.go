// Package web is `mem web`: a local viewer of the memory, served from the
// binary while the command runs. Pages are rendered on the server with
// html/template; the stylesheet and the one small script are embedded.
//
// Every request must carry the session token (in the printed URL, then in a
// cookie); the Host header must name the address served (no DNS rebinding);
// a request from another origin is refused; what changes memory is a POST
// with a CSRF token derived from the session token. Stored text is escaped
// for HTML by the templates, and its control characters are shown as
// visible escapes (\x1b) rather than passed on.
package web

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/switches"
)

// Options configure a Server.
type Options struct {
	DB *store.DB
	// Recall are the settings `mem inject` builds blocks with.
	Recall recall.Settings
	// Current is the project `mem web` was started in (may be zero): its
	// root is where its switches live.
	Current project.Identity
	// Switches decides what applies at a project root (mem config show).
	Switches func(root string) switches.Decision
	// SourceEnabled says whether a pending-context source is switched on.
	SourceEnabled func(source string) bool
	// Now is the clock; the overview's 90 days end at Now.
	Now func() time.Time
	// Token is the session token; empty makes a random one.
	Token string
	// Config is the effective configuration, shown read-only (/settings);
	// its hook.log is the log /log shows. Nil shows none.
	Config *config.Config
	// Poll is how often the live updates look for a change (default 250ms).
	Poll time.Duration
}

// Server serves the viewer.
type Server struct {
	o     Options
	token string
	csrf  string
	// hosts are the Host values accepted; anyIP accepts any IP literal
	// with the served port too (--allow-remote).
	hosts  map[string]bool
	anyIP  bool
	port   string
	cookie string
}

// New returns a Server for the address it listens on (host:port, as
// net.Listener.Addr gives it). With remote false the address must be a
// loopback one.
func New(o Options, addr string, remote bool) (*Server, error) {
	if o.DB == nil {
		return nil, errors.New("web: no database")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Poll <= 0 {
		o.Poll = 250 * time.Millisecond
	}
	if o.Switches == nil {
		on := switches.Setting{On: true, Source: "default"}
		o.Switches = func(root string) switches.Decision {
			return switches.Decide(switches.Settings{Inject: on, Capture: on}, root)
		}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("web: address %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if !remote && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("web: %s is not a loopback address (give --allow-remote to serve it)", host)
	}
	s := &Server{o: o, token: o.Token, port: port, anyIP: remote, hosts: map[string]bool{},
		cookie: "mem_token_" + port}
	if s.token == "" {
		if s.token, err = randomToken(); err != nil {
			return nil, err
		}
	}
	m := hmac.New(sha256.New, []byte(s.token))
	m.Write([]byte("mem web csrf"))
	s.csrf = hex.EncodeToString(m.Sum(nil))
	for _, h := range []string{host, "localhost", "127.0.0.1", "::1"} {
		s.hosts[net.JoinHostPort(h, port)] = true
	}
	return s, nil
}

// URL is the address to open: it carries the token once.
func (s *Server) URL(addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/?token=" + s.token
}

// Token is the session token.
func (s *Server) Token() string { return s.token }

// CSRF is the value state-changing forms carry.
func (s *Server) CSRF() string { return s.csrf }

// CookieName is the name of the token cookie; it holds the port, since
// cookies of one host are shared by all its ports.
func (s *Server) CookieName() string { return s.cookie }

// Handler is the whole viewer behind its safety checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.routes(mux)
	return s.guard(mux)
}

// Serve serves on l until ctx ends.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	base, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return base }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	cancel() // ends the live streams, so that Shutdown need not wait for them
	sctx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("web: stopping: %w", err)
	}
	return nil
}

// guard applies the checks every request passes, then the headers every
// answer carries.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		// same-origin, not no-referrer: with no-referrer, browsers send "Origin:
		// null" on a form POST, which the origin check must refuse.
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cache-Control", "no-store")
		if !s.hostOK(r.Host) {
			http.Error(w, "mem web: refused: the Host header names another site", http.StatusMisdirectedRequest)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
			http.Error(w, "mem web: refused: a request from another origin", http.StatusForbidden)
			return
		}
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			http.Error(w, "mem web: refused: a cross-site request", http.StatusForbidden)
			return
		}
		if t := r.URL.Query().Get("token"); t != "" && r.Method == http.MethodGet {
			if !equal(t, s.token) {
				http.Error(w, "mem web: refused: wrong token (open the URL mem web printed)", http.StatusForbidden)
				return
			}
			// The cookie outlives the browser's session, as the token
			// outlives the server's: a bookmark of the address opens the
			// viewer until the token is replaced (mem web --new-token).
			http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: s.token, Path: "/", HttpOnly: true,
				SameSite: http.SameSiteStrictMode, MaxAge: cookieAge})
			u := *r.URL
			q := u.Query()
			q.Del("token")
			u.RawQuery = q.Encode()
			http.Redirect(w, r, (&url.URL{Path: u.Path, RawQuery: u.RawQuery}).String(), http.StatusSeeOther)
			return
		}
		c, err := r.Cookie(s.cookie)
		if err != nil || !equal(c.Value, s.token) {
			http.Error(w, "mem web: refused: no token (open the URL mem web printed)", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if r.Method != http.MethodPost {
				http.Error(w, "mem web: only GET and POST", http.StatusMethodNotAllowed)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, maxForm)
			if !equal(r.PostFormValue("csrf"), s.csrf) {
				http.Error(w, "mem web: refused: the form's CSRF token is wrong (reload the page)", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// hostOK accepts the served address and the loopback names of its port;
// with --allow-remote, any IP literal with that port.
func (s *Server) hostOK(host string) bool {
	if s.hosts[host] {
		return true
	}
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != s.port {
		return false
	}
	return s.anyIP && net.ParseIP(strings.Trim(h, "[]")) != nil
}

// cookieAge is how long the browser keeps the token cookie, in seconds:
// 400 days, the most Chromium keeps any cookie.
const cookieAge = 400 * 24 * 60 * 60

// maxForm bounds a form's body: an edited observation is far smaller.
const maxForm = 4 << 20

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
