package web

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/store"
)

const (
	testAddr    = "127.0.0.1:8080"
	testProject = "github.com/acme/widget"
)

// Hostile text: markup that would run if it reached the page as HTML, and
// terminal escapes and a bidirectional override that must show visibly.
const (
	hostileTitle     = `<script>alert("t")</script> quokka`
	hostileAttr      = `"><img src=x onerror=alert(1)> quokka`
	hostileNarrative = "red \x1b[31malert\x1b[0m and \u202eevil <b>bold</b> quokka"
)

type fixture struct {
	db      *store.DB
	srv     *Server
	h       http.Handler
	root    string
	ids     []int64
	session string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{db: db, root: t.TempDir(), session: "sess-1"}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, _, err := db.StartSession(ctx, memory.Session{ID: f.session, Project: testProject, Agent: "claude-code",
		Cwd: f.root, StartedAt: now.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddPrompt(ctx, f.session, "find the quokka bug <script>x</script>", now.Add(-50*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for i, o := range []memory.Observation{
		{Type: memory.TypeDecision, Title: hostileTitle, Narrative: hostileNarrative, Facts: []string{"fact \x1b]52;c;aGk=\x07 one"}},
		{Type: memory.TypeProblem, Title: hostileAttr, Narrative: "second quokka"},
		{Type: memory.TypeNote, Title: "plain walrus note", Narrative: "nothing odd"},
	} {
		o.SessionID, o.CreatedAt = f.session, now.Add(time.Duration(i-40)*time.Minute)
		a, err := db.AddObservation(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		f.ids = append(f.ids, a.ID)
	}
	f.srv, err = New(Options{DB: db, Recall: recall.DefaultSettings(), Now: func() time.Time { return now },
		Current: project.Identity{Key: testProject, Root: f.root}, Token: "tok"}, testAddr, false)
	if err != nil {
		t.Fatal(err)
	}
	f.h = f.srv.Handler()
	return f
}

// do sends a request as the browser does after the first page: right Host,
// the token cookie.
func (f *fixture) do(t *testing.T, method, target string, form url.Values, edit func(*http.Request)) *httptest.ResponseRecorder {
	t.Helper()
	var r *http.Request
	if form != nil {
		r = httptest.NewRequest(method, target, strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		r = httptest.NewRequest(method, target, nil)
	}
	r.Host = testAddr
	r.AddCookie(&http.Cookie{Name: f.srv.CookieName(), Value: f.srv.Token()})
	if edit != nil {
		edit(r)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

func (f *fixture) form(v url.Values) url.Values {
	v.Set("csrf", f.srv.CSRF())
	return v
}

func (f *fixture) title(t *testing.T, id int64) string {
	t.Helper()
	obs, err := f.db.Observations(context.Background(), []int64{id})
	if err != nil {
		t.Fatal(err)
	}
	return obs[0].Title
}

func TestRequestsWithoutTheRightCredentialsAreRefused(t *testing.T) {
	f := newFixture(t)
	before := f.title(t, f.ids[0])
	edit := url.Values{"title": {"changed"}, "type": {"note"}}
	cases := []struct {
		name   string
		method string
		target string
		form   url.Values
		edit   func(*http.Request)
		want   int
	}{
		{"no cookie", "GET", "/", nil, func(r *http.Request) { r.Header.Del("Cookie") }, 403},
		{"wrong cookie", "GET", "/", nil, func(r *http.Request) {
			r.Header.Del("Cookie")
			r.AddCookie(&http.Cookie{Name: f.srv.CookieName(), Value: "nope"})
		}, 403},
		{"wrong token in the URL", "GET", "/?token=nope", nil, func(r *http.Request) { r.Header.Del("Cookie") }, 403},
		{"rebound DNS name", "GET", "/", nil, func(r *http.Request) { r.Host = "evil.example:8080" }, 421},
		{"another port", "GET", "/", nil, func(r *http.Request) { r.Host = "127.0.0.1:9999" }, 421},
		{"cross-origin read", "GET", "/obs/1", nil, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, 403},
		{"cross-site fetch", "GET", "/", nil, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") }, 403},
		{"edit without csrf", "POST", "/obs/1", edit, nil, 403},
		{"edit with a wrong csrf", "POST", "/obs/1", url.Values{"csrf": {"x"}, "title": {"changed"}, "type": {"note"}}, nil, 403},
		{"edit from another origin", "POST", "/obs/1", f.form(url.Values{"title": {"changed"}, "type": {"note"}}),
			func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, 403},
		{"forget without csrf", "POST", "/obs/1/forget", url.Values{}, nil, 403},
		{"switch without csrf", "POST", "/switch", url.Values{"p": {testProject}, "part": {"inject"}, "on": {"0"}}, nil, 403},
		{"edit by GET", "GET", "/obs/1/forget?csrf=" + f.srv.CSRF(), nil, nil, 200}, // the confirmation, no change
		{"other method", "PUT", "/obs/1", f.form(url.Values{}), nil, 405},
	}
	for _, c := range cases {
		w := f.do(t, c.method, c.target, c.form, c.edit)
		if w.Code != c.want {
			t.Errorf("%s: status %d, want %d: %s", c.name, w.Code, c.want, w.Body.String())
		}
		if w.Code >= 400 && strings.Contains(w.Body.String(), "quokka") {
			t.Errorf("%s: a refused request was shown memory", c.name)
		}
	}
	if got := f.title(t, f.ids[0]); got != before {
		t.Errorf("a refused request changed the title to %q", got)
	}
	if _, err := f.db.Observations(context.Background(), f.ids); err != nil {
		t.Errorf("a refused request forgot something: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.root, ".mem")); !os.IsNotExist(err) {
		t.Errorf("a refused request wrote .mem: %v", err)
	}
}

func TestTokenInTheURLBecomesACookie(t *testing.T) {
	f := newFixture(t)
	w := f.do(t, "GET", "/project?p=x&token="+f.srv.Token(), nil, func(r *http.Request) { r.Header.Del("Cookie") })
	if w.Code != http.StatusSeeOther {
		t.Fatalf("status %d", w.Code)
	}
	if loc := w.Header().Get("Location"); loc != "/project?p=x" {
		t.Errorf("redirected to %q: the token must leave the address bar", loc)
	}
	c := w.Result().Cookies()
	if len(c) != 1 || c[0].Value != f.srv.Token() || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie %+v", c)
	}
	for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy"} {
		if w.Header().Get(h) == "" {
			t.Errorf("no %s header", h)
		}
	}
}

func TestAddressesAndHosts(t *testing.T) {
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := New(Options{DB: db}, "0.0.0.0:80", false); err == nil {
		t.Error("a non-loopback address was accepted without --allow-remote")
	}
	s, err := New(Options{DB: db}, "0.0.0.0:8080", true)
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{
		"192.168.1.7:8080": true, "[::1]:8080": true, "localhost:8080": true, "127.0.0.1:8080": true,
		"evil.example:8080": false, "192.168.1.7:80": false, "192.168.1.7": false,
	} {
		if got := s.hostOK(host); got != want {
			t.Errorf("remote server, Host %q: ok %v, want %v", host, got, want)
		}
	}
	if s.URL("0.0.0.0:8080") != "http://127.0.0.1:8080/?token="+s.Token() || len(s.Token()) != 64 {
		t.Errorf("URL %q", s.URL("0.0.0.0:8080"))
	}
}

func TestHostileTextIsShownAsText(t *testing.T) {
	f := newFixture(t)
	pages := []string{
		"/",
		"/project?p=" + url.QueryEscape(testProject),
		"/project?p=" + url.QueryEscape(testProject) + "&q=quokka",
		"/search?q=quokka",
		"/session?id=" + f.session,
		"/obs/1", "/obs/2", "/obs/1/forget",
		"/agent?p=" + url.QueryEscape(testProject),
		"/agent?p=" + url.QueryEscape(testProject) + "&format=text&session=" + f.session + "&mode=compact",
	}
	for _, p := range pages {
		w := f.do(t, "GET", p, nil, nil)
		body := w.Body.String()
		if w.Code != 200 {
			t.Errorf("%s: status %d: %s", p, w.Code, body)
			continue
		}
		for _, bad := range []string{`<script>alert`, `<script>x`, `<img src=x`, "\x1b", "\u202e", "\x07", `<b>bold`} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: the page holds %q as it is", p, bad)
			}
		}
		if !strings.Contains(body, "quokka") && !strings.HasPrefix(p, "/obs/") && p != "/" {
			t.Errorf("%s: the memory is not shown", p)
		}
	}
	body := f.do(t, "GET", "/obs/1", nil, nil).Body.String()
	for _, want := range []string{`&lt;script&gt;alert(&#34;t&#34;)&lt;/script&gt;`, `<span class="esc">\x1b</span>[31malert`,
		`<span class="esc">\u202e</span>evil &lt;b&gt;bold&lt;/b&gt;`, `<span class="esc">\a</span>`} {
		if !strings.Contains(body, want) {
			t.Errorf("/obs/1 does not show %q", want)
		}
	}
	body = f.do(t, "GET", "/obs/2", nil, nil).Body.String()
	if !strings.Contains(body, `&#34;&gt;&lt;img src=x onerror=alert(1)&gt;`) {
		t.Errorf("/obs/2 does not show the attribute breakout as text")
	}
}

func TestSearchHighlightsAndFilters(t *testing.T) {
	f := newFixture(t)
	p := "/project?p=" + url.QueryEscape(testProject)
	body := f.do(t, "GET", p+"&q=walrus", nil, nil).Body.String()
	if !strings.Contains(body, "<mark>walrus</mark>") || strings.Contains(body, "/obs/1\"") {
		t.Errorf("search for walrus: want only #3, highlighted:\n%s", body)
	}
	body = f.do(t, "GET", p+"&q=quokka&type=problem", nil, nil).Body.String()
	if !strings.Contains(body, `href="/obs/2"`) || strings.Contains(body, `href="/obs/1"`) {
		t.Errorf("type filter not applied")
	}
	for _, bad := range []string{"&type=nonsense", "&kind=nope", "&since=yesterday-ish", "&offset=-1", "&since=2026-02-01&until=2026-01-01"} {
		w := f.do(t, "GET", p+"&q=quokka"+bad, nil, nil)
		if w.Code != 400 || !strings.Contains(w.Body.String(), `class="error"`) {
			t.Errorf("%s: status %d, want 400 with the field named", bad, w.Code)
		}
	}
	if w := f.do(t, "GET", "/project?p=nobody/nothing", nil, nil); w.Code != 404 {
		t.Errorf("unknown project: %d", w.Code)
	}
	for _, p := range []string{"/obs/999", "/obs/abc", "/session?id=nope", "/nowhere"} {
		if w := f.do(t, "GET", p, nil, nil); w.Code != 404 && w.Code != 400 {
			t.Errorf("%s: %d", p, w.Code)
		}
	}
}

func TestEditGoesThroughThePrivacyFilterAndTheIndex(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	before, _ := f.db.Observations(ctx, []int64{f.ids[0]})
	// What the form shows for the hostile narrative, sent back as it is.
	shownNarrative := editable(before[0].Narrative)
	form := f.form(url.Values{"type": {"bugfix"}, "title": {"narwhal fix <private>hunter2</private>"},
		"narrative": {strings.ReplaceAll(shownNarrative, "\n", "\r\n")}, "facts": {"first fact\r\nsecond fact"}})
	w := f.do(t, "POST", "/obs/1", form, nil)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("edit: status %d: %s", w.Code, w.Body.String())
	}
	after, _ := f.db.Observations(ctx, []int64{f.ids[0]})
	o := after[0]
	if o.Title != "narwhal fix" || o.Type != memory.TypeBugfix || len(o.Facts) != 2 {
		t.Errorf("stored %q %s %q", o.Title, o.Type, o.Facts)
	}
	if o.Narrative != before[0].Narrative {
		t.Errorf("an unchanged narrative was rewritten: %q", o.Narrative)
	}
	hits, err := search.Search(ctx, f.db, search.Query{Text: "narwhal", Project: testProject})
	if err != nil || len(hits) == 0 || hits[0].ID != f.ids[0] {
		t.Errorf("the index does not have the new title: %v %v", hits, err)
	}
	if hits, _ := search.Search(ctx, f.db, search.Query{Text: "hunter2", Project: testProject}); len(hits) != 0 {
		t.Errorf("the private part was stored")
	}

	// Refused edits: the page says why, nothing changes.
	for _, bad := range []url.Values{
		{"type": {"note"}, "title": {"  "}},
		{"type": {"nonsense"}, "title": {"x"}},
		{"type": {"note"}, "title": {strings.Repeat("x", 600)}},
	} {
		w := f.do(t, "POST", "/obs/1", f.form(bad), nil)
		if w.Code != 400 || !strings.Contains(w.Body.String(), `class="error"`) {
			t.Errorf("%v: status %d", bad, w.Code)
		}
	}
	if got := f.title(t, f.ids[0]); got != "narwhal fix" {
		t.Errorf("a refused edit changed the title to %q", got)
	}
}

func TestForgetDeletesLikeTheCLI(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	w := f.do(t, "POST", "/obs/3/forget", f.form(url.Values{}), nil)
	if w.Code != http.StatusSeeOther || !strings.Contains(w.Header().Get("Location"), "forgot=%233") {
		t.Fatalf("forget: %d %s", w.Code, w.Header().Get("Location"))
	}
	if _, err := f.db.Observations(ctx, []int64{f.ids[2]}); err == nil {
		t.Error("still stored")
	}
	if hits, _ := search.Search(ctx, f.db, search.Query{Text: "walrus", Project: testProject}); len(hits) != 0 {
		t.Errorf("still found by search: %v", hits)
	}
	if w := f.do(t, "POST", "/obs/3/forget", f.form(url.Values{}), nil); w.Code != 404 {
		t.Errorf("forgetting it again: %d", w.Code)
	}
}

func TestAgentPageShowsTheInjectBlock(t *testing.T) {
	f := newFixture(t)
	res, err := recall.Build(context.Background(), f.db, recall.Request{Project: testProject, Budget: 300}, recall.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	body := f.do(t, "GET", "/agent?budget=300&p="+url.QueryEscape(testProject), nil, nil).Body.String()
	if !strings.Contains(body, string(show(res.Text))) {
		t.Errorf("the page does not hold the block mem inject gives")
	}
	for _, want := range []string{"Token budget: ", "left over", `class="b-index"`, "recency", `href="/obs/1"`} {
		if !strings.Contains(body, want) {
			t.Errorf("no %q", want)
		}
	}
	for _, bad := range []string{"budget=0", "budget=abc", "mode=sideways", "format=pretty", "compress=zip", "session=" + strings.Repeat("a", 201), "session=" + strings.Repeat("a", 197) + "%1B"} {
		if w := f.do(t, "GET", "/agent?p=x&"+bad, nil, nil); w.Code != 400 {
			t.Errorf("%s: %d", bad, w.Code)
		}
	}
	if w := f.do(t, "GET", "/agent", nil, nil); w.Code != 400 {
		t.Errorf("no project: %d", w.Code)
	}
}

func TestSwitchWritesTheProjectFile(t *testing.T) {
	f := newFixture(t)
	p := "/project?p=" + url.QueryEscape(testProject)
	if body := f.do(t, "GET", p, nil, nil).Body.String(); !strings.Contains(body, "Turn off") {
		t.Fatalf("no switch shown")
	}
	w := f.do(t, "POST", "/switch", f.form(url.Values{"p": {testProject}, "part": {"inject"}, "on": {"0"}}), nil)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("switch: %d %s", w.Code, w.Body.String())
	}
	b, err := os.ReadFile(filepath.Join(f.root, ".mem"))
	if err != nil || !strings.Contains(string(b), "inject = false") {
		t.Errorf(".mem: %q %v", b, err)
	}
	body := f.do(t, "GET", p, nil, nil).Body.String()
	if !strings.Contains(body, "project opted out") {
		t.Errorf("the page does not say injection is off")
	}
	for _, bad := range []url.Values{{"p": {testProject}, "part": {"both"}}, {"p": {"unknown/project"}, "part": {"inject"}}} {
		if w := f.do(t, "POST", "/switch", f.form(bad), nil); w.Code != 400 {
			t.Errorf("%v: %d", bad, w.Code)
		}
	}
}

func TestEventsTellOfANewObservation(t *testing.T) {
	f := newFixture(t)
	f.srv.o.Poll = 50 * time.Millisecond
	ts := httptest.NewServer(f.h)
	defer ts.Close()
	u, _ := url.Parse(ts.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/events", nil)
	req.Host = testAddr
	req.AddCookie(&http.Cookie{Name: f.srv.CookieName(), Value: f.srv.Token()})
	_ = u
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Scan() // retry
	lines.Scan() // : connected
	// Another process's handle writes.
	other, err := store.Open(ctx, f.db.Path(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	start := time.Now()
	if _, err := other.AddObservation(ctx, memory.Observation{SessionID: f.session, Type: memory.TypeNote, Title: "live one"}); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		if lines.Text() == "event: change" {
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("the change was told after %v", d)
			}
			return
		}
	}
	t.Fatalf("no change event: %v", lines.Err())
}

// A session id longer than a stored id may be and holding a secret, as the
// editor knows it: the search box and the session page find the session the
// hooks stored under its key, and no page shows the secret.
func TestSecretSessionIDFindsTheStoredSession(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := "ses-ghp_abcdefghijklmnopqrstuvwxyz0123456789AB-" + strings.Repeat("0123456789abcdef", 11)
	key, err := privacy.SessionID("session", id)
	if err != nil || !strings.HasPrefix(key, "redacted-") {
		t.Fatalf("the key of the id: %q, %v", key, err)
	}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, _, err := f.db.StartSession(ctx, memory.Session{ID: key, Project: testProject, Agent: "claude-code",
		Cwd: f.root, StartedAt: now.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AddObservation(ctx, memory.Observation{SessionID: key, Type: memory.TypeNote,
		Title: "capybara cache warmed", CreatedAt: now.Add(-30 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{
		"/project?p=" + url.QueryEscape(testProject) + "&q=capybara&session=" + url.QueryEscape(id),
		"/session?id=" + url.QueryEscape(id),
	} {
		w := f.do(t, "GET", target, nil, nil)
		body := w.Body.String()
		if w.Code != 200 || !strings.Contains(body, "cache warmed") {
			t.Errorf("%s: %d, want the session's observation:\n%s", target, w.Code, body)
		}
		if strings.Contains(body, "ghp_") {
			t.Errorf("%s shows the secret", target)
		}
	}
}

// The personal tier is shown apart from the projects: a small section, not a
// row of the projects' table.
func TestOverviewShowsThePersonalTierApart(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.db.EnsureSession(ctx, memory.PersonalSession(time.Now())); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AddObservation(ctx, memory.Observation{SessionID: "personal", Type: memory.TypePattern, Title: "I prefer small commits"}); err != nil {
		t.Fatal(err)
	}
	body := f.do(t, "GET", "/", nil, nil).Body.String()
	_, projects, _ := strings.Cut(body, `<section id="projects"`)
	projects, _, _ = strings.Cut(projects, "</section>")
	if strings.Contains(projects, "@personal") {
		t.Errorf("the personal tier is a row of the projects' table")
	}
	if !strings.Contains(body, `<section id="personal"`) || !strings.Contains(body, `href="/project?p=%40personal">1 observations`) {
		t.Errorf("no personal section")
	}
}

// TestCorrectionRetiresTheOld: "Save as a correction" stores a new
// observation citing the files of the old one as they are now, retires the
// old one (the agent page no longer shows it), and both pages say so; a
// stale citation shows on the page.
func TestCorrectionRetiresTheOld(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(f.root, "walrus.go"), []byte("package walrus\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := memory.Observation{SessionID: f.session, Type: memory.TypeDecision, Title: "Walruses sleep 3 hours",
		FilesModified: []string{"walrus.go"}, CreatedAt: time.Date(2026, 5, 1, 11, 30, 0, 0, time.UTC)}
	o.Citations = cite.Take(f.root, cite.Files(&o, ""))
	a, err := f.db.AddObservation(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.root, "walrus.go"), []byte("package walrus // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := f.do(t, "GET", fmt.Sprintf("/obs/%d", a.ID), nil, nil).Body.String()
	if !strings.Contains(page, `id="standing"`) || !strings.Contains(page, "stale: walrus.go changed") {
		t.Errorf("the page does not say the cited file changed")
	}
	w := f.do(t, "POST", fmt.Sprintf("/obs/%d/correct", a.ID), f.form(url.Values{"type": {"decision"},
		"title": {"Walruses sleep 19 hours"}, "narrative": {""}, "facts": {""}}), nil)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("correct: status %d: %s", w.Code, w.Body.String())
	}
	loc := w.Header().Get("Location")
	var id int64
	if _, err := fmt.Sscanf(loc, "/obs/%d?saved=1", &id); err != nil || id == a.ID {
		t.Fatalf("redirected to %q", loc)
	}
	obs, err := f.db.Observations(ctx, []int64{a.ID, id})
	if err != nil {
		t.Fatal(err)
	}
	if obs[0].SupersededBy != id || obs[1].Title != "Walruses sleep 19 hours" {
		t.Errorf("old superseded by %d (want %d), new title %q", obs[0].SupersededBy, id, obs[1].Title)
	}
	if cs, _ := f.db.Citations(ctx, []int64{id}, nil); len(cs) != 1 || cs[0].Path != "walrus.go" {
		t.Errorf("the correction cites %v, want walrus.go as it is now", cs)
	}
	old := f.do(t, "GET", fmt.Sprintf("/obs/%d", a.ID), nil, nil).Body.String()
	if !strings.Contains(old, `id="retired"`) || !strings.Contains(old, fmt.Sprintf(`href="/obs/%d"`, id)) || !strings.Contains(old, `id="chain"`) {
		t.Errorf("the old page does not say it was corrected")
	}
	agent := f.do(t, "GET", "/agent?p="+url.QueryEscape(testProject), nil, nil).Body.String()
	if strings.Contains(agent, "sleep 3 hours") || !strings.Contains(agent, "sleep 19 hours") {
		t.Errorf("the agent page still shows the retired record, or not its correction")
	}
	// A correction identical to the record is refused, nothing changes.
	if w := f.do(t, "POST", fmt.Sprintf("/obs/%d/correct", id), f.form(url.Values{"type": {"decision"},
		"title": {"Walruses sleep 19 hours"}, "narrative": {""}, "facts": {""}}), nil); w.Code != 400 {
		t.Errorf("an identical correction: status %d", w.Code)
	}
}

// The review forms take a record's id as the CLI does (memory.ParseRef):
// #S1 is summary S1, never observation #1; a prompt id is refused.
func TestReviewTakesIDsAsTheCLIDoes(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sum, err := f.db.PutSummary(ctx, memory.Summary{SessionID: f.session, Request: "find the quokka bug"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.ID != f.ids[0] {
		t.Fatalf("summary S%d and observation #%d: the test needs the same number", sum.ID, f.ids[0])
	}
	ref := fmt.Sprintf("#S%d", sum.ID)
	w := f.do(t, "POST", "/review/forget", f.form(url.Values{"p": {testProject}, "ref": {ref}}), nil)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("forget %s: %d %s", ref, w.Code, w.Body)
	}
	if _, err := f.db.Summary(ctx, sum.ID); err == nil {
		t.Errorf("forget %s: summary S%d still stored", ref, sum.ID)
	}
	if _, err := f.db.Observations(ctx, []int64{f.ids[0]}); err != nil {
		t.Errorf("forget %s took observation #%d: %v", ref, f.ids[0], err)
	}
	w = f.do(t, "POST", "/review/forget", f.form(url.Values{"p": {testProject}, "ref": {"P1"}}), nil)
	if w.Code != http.StatusBadRequest {
		t.Errorf("forget P1: %d, want 400", w.Code)
	}
}
