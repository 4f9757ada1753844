package web

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/memory"
)

// addOther stores an observation of a second project.
func (f *fixture) addOther(t *testing.T, title string) {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 11, 59, 0, 0, time.UTC)
	if _, _, err := f.db.StartSession(ctx, memory.Session{ID: "other-1", Project: "github.com/acme/gadget", StartedAt: at}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AddObservation(ctx, memory.Observation{SessionID: "other-1", Type: memory.TypeNote, Title: title,
		CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
}

func TestSearchEveryProject(t *testing.T) {
	f := newFixture(t)
	f.addOther(t, "gadget quokka notes")
	w := f.do(t, "GET", "/search?q=quokka", nil, nil)
	body := w.Body.String()
	if w.Code != 200 {
		t.Fatalf("/search: %d %s", w.Code, body)
	}
	for _, want := range []string{`<mark>quokka</mark>`, `href="/project?p=github.com%2facme%2fgadget"`,
		`href="/project?p=github.com%2facme%2fwidget"`, `action="/search"`} {
		if !strings.Contains(body, want) {
			t.Errorf("/search?q=quokka lacks %s", want)
		}
	}
	if w := f.do(t, "GET", "/search?q=quokka&type=nonsense", nil, nil); w.Code != 400 || !strings.Contains(w.Body.String(), "type") {
		t.Errorf("a bad type: %d", w.Code)
	}
	if w := f.do(t, "GET", "/search", nil, nil); w.Code != 200 || strings.Contains(w.Body.String(), `class="hit"`) {
		t.Errorf("an empty search lists hits: %d", w.Code)
	}
}

func TestOverviewFeedAndSwitcher(t *testing.T) {
	f := newFixture(t)
	f.addOther(t, "gadget arrives in the feed")
	for _, p := range []string{"/", "/search", "/settings", "/log", "/session?id=" + f.session, "/obs/1",
		"/project?p=" + url.QueryEscape(testProject), "/agent?p=" + url.QueryEscape(testProject)} {
		body := f.do(t, "GET", p, nil, nil).Body.String()
		if !strings.Contains(body, `<option value="github.com/acme/gadget"`) || !strings.Contains(body, `<option value="github.com/acme/widget"`) {
			t.Errorf("%s has no project switcher with both projects", p)
		}
	}
	body := f.do(t, "GET", "/", nil, nil).Body.String()
	feed := body[strings.Index(body, `id="feed"`):strings.Index(body, `id="chart"`)]
	if !strings.Contains(feed, "gadget arrives in the feed") || !strings.Contains(feed, "plain walrus note") {
		t.Errorf("the feed lacks the newest of both projects: %s", feed)
	}
}

func TestSettingsHideCredentials(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "MEM_SYNC_PASSWORD": "hunter2-secret",
		"MEM_SYNC_URL": "https://bob:s3cret-pass@db.example:4001,http://127.0.0.1:4003"}
	cfg, err := config.Load(func(k string) string { return env[k] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	f.srv.o.Config = cfg
	w := f.do(t, "GET", "/settings", nil, nil)
	body := w.Body.String()
	if w.Code != 200 {
		t.Fatalf("/settings: %d %s", w.Code, body)
	}
	for _, bad := range []string{"hunter2", "s3cret"} {
		if strings.Contains(body, bad) {
			t.Errorf("/settings shows %q", bad)
		}
	}
	for _, want := range []string{"https://xxxxx@db.example:4001,http://127.0.0.1:4003", config.Hidden, "web.addr",
		"127.0.0.1:7411", "MEM_SYNC_URL", testProject} {
		if !strings.Contains(body, want) {
			t.Errorf("/settings lacks %q", want)
		}
	}
	if strings.Contains(body, "<form method=\"post\"") {
		t.Errorf("/settings can change something")
	}
}

func TestHookLogShowsItsEndEscaped(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "hook.log")
	cfg := &config.Config{}
	cfg.Settings.Hook.Log = log
	f := newFixture(t)
	f.srv.o.Config = cfg
	if body := f.do(t, "GET", "/log", nil, nil).Body.String(); !strings.Contains(body, "No hook log yet") {
		t.Errorf("a missing log: %s", body)
	}
	var b strings.Builder
	b.WriteString("FIRST LINE, cut\n")
	for b.Len() < 2*logTail {
		b.WriteString("2026-05-01T12:00:00Z hook claude: stored\n")
	}
	b.WriteString("last: <script>alert(1)</script> \x1b[31mred\u202e\n")
	if err := os.WriteFile(log, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	body := f.do(t, "GET", "/log", nil, nil).Body.String()
	if strings.Contains(body, "FIRST LINE") || !strings.Contains(body, "The last") {
		t.Errorf("the log is not cut to its end")
	}
	for _, bad := range []string{"<script>alert", "\x1b", "\u202e"} {
		if strings.Contains(body, bad) {
			t.Errorf("/log holds %q as it is", bad)
		}
	}
	if !strings.Contains(body, `last: &lt;script&gt;alert(1)&lt;/script&gt; <span class="esc">\x1b</span>[31mred`) {
		t.Errorf("/log does not show the last line escaped")
	}
	if runtime.GOOS == "windows" {
		return
	}
	// A FIFO in its place is refused, not waited on.
	os.Remove(log)
	if err := syscall.Mkfifo(log, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() { done <- f.do(t, "GET", "/log", nil, nil).Body.String() }()
	select {
	case body := <-done:
		if !strings.Contains(body, `class="error"`) {
			t.Errorf("a FIFO as the log: %s", body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the log page waits on a FIFO")
	}
}

func TestKeepToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "web.token")
	first, state, err := KeepToken(path, false)
	if err != nil || state != TokenNew || !validToken(first) {
		t.Fatalf("first: %q %q %v", first, state, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the token file: %v %v", fi.Mode(), err)
	}
	if again, state, _ := KeepToken(path, false); again != first || state != TokenKept {
		t.Errorf("kept: %q %q", again, state)
	}
	renewed, state, _ := KeepToken(path, true)
	if renewed == first || state != TokenRenewed {
		t.Errorf("renewed: %q %q", renewed, state)
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		loose, state, _ := KeepToken(path, false)
		if loose == renewed || state != TokenLoose {
			t.Errorf("a readable file's token was kept: %q", state)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("the replaced file is %o", fi.Mode().Perm())
		}
	}
	if err := os.WriteFile(path, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, state, _ := KeepToken(path, false); !validToken(tok) || state != TokenNew {
		t.Errorf("a file with no token: %q %q", tok, state)
	}
}

// The cookie outlives the browser's session: a bookmark opens the viewer.
func TestTokenCookieIsKept(t *testing.T) {
	f := newFixture(t)
	w := f.do(t, "GET", "/?token=tok", nil, nil)
	c := w.Result().Cookies()
	if len(c) != 1 || c[0].MaxAge < 30*24*60*60 || !c[0].HttpOnly {
		t.Errorf("the token cookie: %+v", c)
	}
}

// TestSearchMarksStaleHits: a hit whose cited file changed since it was
// recorded says so on the search pages, as mem search does.
func TestSearchMarksStaleHits(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	file := filepath.Join(f.root, "pay", "retry.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("package pay\n\nconst MaxRetries = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := memory.Observation{SessionID: f.session, Type: memory.TypeDecision, Title: "payments retry wombat five times",
		FilesModified: []string{"pay/retry.go"}, CreatedAt: time.Date(2026, 5, 1, 11, 0, 0, 0, time.UTC)}
	o.Citations = cite.Take(f.root, cite.Files(&o, ""))
	if _, err := f.db.AddObservation(ctx, o); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/search?q=wombat", "/project?p=" + url.QueryEscape(testProject) + "&q=wombat"} {
		if body := f.do(t, "GET", p, nil, nil).Body.String(); strings.Contains(body, "stale") || !strings.Contains(body, "wombat") {
			t.Errorf("%s before the change: want the hit, not marked stale:\n%s", p, body)
		}
	}
	if err := os.WriteFile(file, []byte("package pay\n\nconst MaxRetries = 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/search?q=wombat", "/project?p=" + url.QueryEscape(testProject) + "&q=wombat"} {
		if body := f.do(t, "GET", p, nil, nil).Body.String(); !strings.Contains(body, `<span class="note">stale: pay/retry.go changed</span>`) {
			t.Errorf("%s after the change: the hit is not marked stale:\n%s", p, body)
		}
	}
}
