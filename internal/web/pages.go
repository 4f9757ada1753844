package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/collector"
	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/switches"
	"github.com/memhq/mem/internal/tokens"
)

func (s *Server) routes(mux *http.ServeMux) {
	mux.Handle("GET /static/", static())
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/static/favicon.svg", http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /{$}", s.overview)
	mux.HandleFunc("GET /project", s.project)
	mux.HandleFunc("GET /session", s.session)
	mux.HandleFunc("GET /obs/{id}", s.observation)
	mux.HandleFunc("POST /obs/{id}", s.edit)
	mux.HandleFunc("POST /obs/{id}/correct", s.correct)
	mux.HandleFunc("POST /obs/{id}/mark", s.mark)
	mux.HandleFunc("GET /obs/{id}/forget", s.confirmForget)
	mux.HandleFunc("POST /obs/{id}/forget", s.forget)
	mux.HandleFunc("GET /agent", s.agent)
	mux.HandleFunc("GET /review", s.review)
	mux.HandleFunc("POST /review/{action}", s.reviewAction)
	mux.HandleFunc("POST /switch", s.toggle)
	mux.HandleFunc("GET /events", s.events)
	s.dashboardRoutes(mux)
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, fmt.Errorf("page %s: %w", r.URL.Path, memory.ErrNotFound))
	})
}

// page is what every page shows around its content.
type page struct {
	Title string
	CSRF  string
	Now   time.Time
	// Project is the project the page is about, for the navigation.
	Project string
	// keys lists the projects of the switcher (see Switcher).
	keys func() []string
}

func (s *Server) page(title, project string) page {
	return page{Title: title, CSRF: s.csrf, Now: s.o.Now(), Project: project, keys: s.projectKeys}
}

// fail answers an error: bad input 400, a missing record 404, else 500.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	switch {
	case memory.IsInvalid(err):
		status = http.StatusBadRequest
	case errors.Is(err, memory.ErrNotFound):
		status = http.StatusNotFound
	case r.Context().Err() != nil:
		return
	}
	render(w, status, "error", struct {
		page
		Status  int
		Message string
	}{s.page(http.StatusText(status), ""), status, err.Error()})
}

// ---- overview ----

type overviewPage struct {
	page
	Projects []store.ProjectActivity
	Personal *store.ProjectActivity // the personal tier, shown apart
	Sessions []memory.Session
	Chart    chart
	Totals   store.ProjectActivity
	Feed     []search.Hit
	// Feedback is what the memory injected in the last feedbackDays was
	// worth, per project.
	Feedback     []memory.Feedback
	FeedbackDays int
}

func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p := overviewPage{page: s.page("Overview", "")}
	var err error
	if p.Projects, err = s.o.DB.Projects(ctx); err != nil {
		s.fail(w, r, err)
		return
	}
	for i, pr := range p.Projects {
		if pr.Project == memory.PersonalProject {
			p.Personal = &pr
			p.Projects = append(p.Projects[:i:i], p.Projects[i+1:]...)
			break
		}
	}
	for _, pr := range p.Projects {
		p.Totals.Sessions += pr.Sessions
		p.Totals.Observations += pr.Observations
		p.Totals.Summaries += pr.Summaries
		p.Totals.Prompts += pr.Prompts
	}
	if p.Sessions, err = s.o.DB.RecentSessions(ctx, 15); err != nil {
		s.fail(w, r, err)
		return
	}
	end := p.Now.UTC().Truncate(24 * time.Hour)
	since := end.AddDate(0, 0, -(chartDays - 1))
	days, err := s.o.DB.ObservationsPerDay(ctx, "", since)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p.Chart = newChart(days, since)
	if p.Feed, err = s.feed(ctx); err != nil {
		s.fail(w, r, err)
		return
	}
	p.FeedbackDays = feedbackDays
	if p.Feedback, err = s.o.DB.FeedbackPerProject(ctx, p.Now.AddDate(0, 0, -feedbackDays)); err != nil {
		s.fail(w, r, err)
		return
	}
	render(w, http.StatusOK, "overview", p)
}

// ---- project: sessions, switches, search ----

type searchForm struct {
	Q, Session, File, Since, Until string
	Types                          map[string]bool
	Kinds                          map[string]bool
	Offset                         int
}

type projectPage struct {
	page
	Key      string
	Sessions []memory.Session
	Switches *switchView
	Form     searchForm
	Hits     []search.Hit
	Err      string
	Next     string
	Forgot   string
	All      bool // false: the search is this project's
}

type switchView struct {
	Root     string
	Decision switches.Decision
	Inject   bool // what the .mem file says
	Capture  bool
}

func (s *Server) project(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.URL.Query().Get("p")
	if key == "" {
		s.fail(w, r, memory.Invalid("p", "a project key (from the overview)", ""))
		return
	}
	sessions, err := s.o.DB.ListSessions(ctx, store.SessionFilter{Project: key, Limit: 30})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(sessions) == 0 && key != s.o.Current.Key {
		s.fail(w, r, fmt.Errorf("project %s: %w", key, memory.ErrNotFound))
		return
	}
	p := projectPage{page: s.page(key, key), Key: key, Sessions: sessions, Forgot: r.URL.Query().Get("forgot")}
	if root := s.root(key, sessions); root != "" {
		f, _ := switches.ReadFile(root)
		p.Switches = &switchView{Root: root, Decision: s.o.Switches(root), Inject: f.Inject, Capture: f.Capture}
	}
	q, form, err := searchQuery(r.URL.Query(), key, p.Now)
	p.Form = form
	res, err := s.searched(r, q, err, true)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p.Hits, p.Err, p.Next = res.hits, res.refused, res.next
	render(w, res.status, "project", p)
}

// root finds where a project's .mem lives: the current project's root, or
// the root its sessions' folder resolves to when that is the same project.
func (s *Server) root(key string, sessions []memory.Session) string {
	if key == s.o.Current.Key && s.o.Current.Root != "" {
		return s.o.Current.Root
	}
	for _, ss := range sessions {
		if ss.Cwd == "" {
			continue
		}
		id, err := project.Resolve(ss.Cwd, "")
		if err == nil && id.Key == key {
			return id.Root
		}
		return ""
	}
	return ""
}

const pageSize = 25

// searchQuery reads the search form: the same query and filters as `mem
// search`, checked the same way.
func searchQuery(v url.Values, key string, now time.Time) (search.Query, searchForm, error) {
	f := searchForm{Q: v.Get("q"), Session: strings.TrimSpace(v.Get("session")), File: strings.TrimSpace(v.Get("file")),
		Since: v.Get("since"), Until: v.Get("until"), Types: map[string]bool{}, Kinds: map[string]bool{}}
	q := search.Query{Text: f.Q, Project: key, File: f.File, Limit: pageSize}
	if f.Session != "" {
		// The key the session is stored under, as every command maps it.
		id, err := privacy.GivenSessionID("session", f.Session)
		if err != nil {
			return q, f, err
		}
		f.Session, q.SessionID = id, id
	}
	for _, t := range v["type"] {
		typ, err := memory.ParseType(t)
		if err != nil {
			return q, f, memory.Invalid("type", memory.TypeList(), t)
		}
		f.Types[t] = true
		q.Types = append(q.Types, typ)
	}
	for _, k := range v["kind"] {
		kind, err := search.ParseKind(k)
		if err != nil {
			return q, f, memory.Invalid("kind", "observation, summary or prompt", k)
		}
		f.Kinds[k] = true
		q.Kinds = append(q.Kinds, kind)
	}
	var err error
	if f.Since != "" {
		if q.Since, err = memory.ParseWhen("since", f.Since, now); err != nil {
			return q, f, err
		}
	}
	if f.Until != "" {
		if q.Until, err = memory.ParseWhen("until", f.Until, now); err != nil {
			return q, f, err
		}
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Until.After(q.Since) {
		return q, f, memory.Invalid("until", "a time after since", f.Until)
	}
	if o := v.Get("offset"); o != "" {
		n, err := strconv.Atoi(o)
		if err != nil || n < 0 || n+pageSize > search.MaxLimit {
			return q, f, memory.Invalid("offset", fmt.Sprintf("a number from 0 to %d", search.MaxLimit-pageSize), o)
		}
		f.Offset, q.Offset = n, n
	}
	return q, f, nil
}

// ---- session: timeline and pending context ----

type sessionPage struct {
	page
	Session  memory.Session
	Timeline []search.Hit
	Summary  *memory.Summary
	Pending  pendingView
}

type pendingView struct {
	Entries []pendingEntry
	Block   string
	Tokens  int
}

type pendingEntry struct {
	memory.PendingEntry
	Priority string
	Tokens   int
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, err := privacy.GivenSessionID("id", r.URL.Query().Get("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sess, err := s.o.DB.Session(ctx, id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := sessionPage{page: s.page("Session "+id, sess.Project), Session: sess}
	if p.Timeline, err = s.o.DB.Timeline(ctx, search.TimelineQuery{SessionID: id}); err != nil {
		s.fail(w, r, err)
		return
	}
	if sum, err := s.o.DB.SessionSummary(ctx, id); err == nil {
		p.Summary = &sum
	} else if !errors.Is(err, memory.ErrNotFound) {
		s.fail(w, r, err)
		return
	}
	if p.Pending, err = s.pending(ctx, id); err != nil {
		s.fail(w, r, err)
		return
	}
	render(w, http.StatusOK, "session", p)
}

// pending is what the session's next prompt would be given, without
// consuming it.
func (s *Server) pending(ctx context.Context, session string) (pendingView, error) {
	c := collector.New(s.o.DB, s.o.Now, s.o.SourceEnabled)
	es, err := c.Pending(ctx, session)
	if err != nil || len(es) == 0 {
		return pendingView{}, err
	}
	v := pendingView{Block: collector.Render(es)}
	v.Tokens = tokens.Estimate(v.Block)
	for _, e := range es {
		v.Entries = append(v.Entries, pendingEntry{PendingEntry: e, Priority: collector.PriorityName(e.Priority),
			Tokens: tokens.Estimate(e.Content)})
	}
	return v, nil
}

// ---- observation: fields, edit, forget ----

type obsPage struct {
	page
	Obs   memory.Observation
	Saved bool
	Err   string
	// Edit holds the form's values when an edit was refused.
	Edit *editForm
	// Chain is its correction chain, oldest first, when it has one.
	Chain []int64
	// Verdict is a person's verdict on it (useful, wrong), Marked that one
	// was just given.
	Verdict string
	Marked  bool
}

type editForm struct {
	Type, Title, Narrative, Facts string
}

func (s *Server) load(w http.ResponseWriter, r *http.Request) (memory.Observation, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.fail(w, r, memory.Invalid("id", "an observation number", r.PathValue("id")))
		return memory.Observation{}, false
	}
	obs, err := s.o.DB.Observations(r.Context(), []int64{id})
	if err == nil {
		err = cite.Annotate(r.Context(), &cite.Checker{Store: s.o.DB}, obs)
	}
	if err != nil {
		s.fail(w, r, err)
		return memory.Observation{}, false
	}
	return obs[0], true
}

func (s *Server) observation(w http.ResponseWriter, r *http.Request) {
	o, ok := s.load(w, r)
	if !ok {
		return
	}
	chain, err := s.o.DB.CorrectionChain(r.Context(), o.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(chain) < 2 {
		chain = nil
	}
	verdict, err := s.verdict(r, o)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	render(w, http.StatusOK, "observation", obsPage{page: s.page(fmt.Sprintf("#%d", o.ID), o.Project), Obs: o,
		Saved: r.URL.Query().Get("saved") != "", Chain: chain, Verdict: verdict, Marked: r.URL.Query().Get("marked") != ""})
}

// edit stores an edited title, narrative, type and facts the way `mem
// observe` stores new ones: through the privacy filter, the index kept in
// step by the store.
func (s *Server) edit(w http.ResponseWriter, r *http.Request) {
	o, ok := s.load(w, r)
	if !ok {
		return
	}
	f, e, err := edited(r, o, "edit")
	if err == nil {
		_, err = s.o.DB.UpdateObservation(r.Context(), e)
	}
	s.saved(w, r, o, f, o.ID, err)
}

// saved answers a form posted on o's page: the page again with the error
// when the input is invalid, else the page of the observation id saved.
func (s *Server) saved(w http.ResponseWriter, r *http.Request, o memory.Observation, f editForm, id int64, err error) {
	switch {
	case memory.IsInvalid(err):
		render(w, http.StatusBadRequest, "observation", obsPage{page: s.page(fmt.Sprintf("#%d", o.ID), o.Project),
			Obs: o, Err: err.Error(), Edit: &f})
	case err != nil:
		s.fail(w, r, err)
	default:
		http.Redirect(w, r, fmt.Sprintf("/obs/%d?saved=1", id), http.StatusSeeOther)
	}
}

// edited is o with the form's fields, through the privacy filter and the
// instruction check, as a person's event of the viewer.
func edited(r *http.Request, o memory.Observation, event string) (editForm, memory.Observation, error) {
	f := editForm{Type: r.PostFormValue("type"), Title: r.PostFormValue("title"),
		Narrative: r.PostFormValue("narrative"), Facts: r.PostFormValue("facts")}
	e := o
	e.Standing, e.Citations = nil, nil
	e.Title = unchanged(f.Title, o.Title)
	e.Narrative = unchanged(f.Narrative, o.Narrative)
	if formText(f.Facts) != editable(strings.Join(o.Facts, "\n")) {
		e.Facts = strings.Split(formText(f.Facts), "\n")
	}
	typ, err := memory.ParseType(f.Type)
	if err != nil {
		return f, e, err
	}
	e.Type = typ
	e.Provenance = memory.Provenance{Origin: memory.OriginPerson, Agent: "web", Event: event, Untrusted: o.Untrusted}
	if e, err = privacy.CleanObservation(e); err != nil {
		return f, e, err
	}
	guard.MarkObservation(&e)
	return f, e, nil
}

// correct stores the form as a new observation that supersedes o, as `mem
// observe --supersedes` does: o is retired, never given to an agent again,
// and the correction cites o's files as they are now.
func (s *Server) correct(w http.ResponseWriter, r *http.Request) {
	o, ok := s.load(w, r)
	if !ok {
		return
	}
	f, e, err := edited(r, o, "correct")
	var added store.Added
	if err == nil {
		e.ID, e.UUID, e.ContentHash, e.TokenCount, e.SupersededBy = 0, "", "", 0, 0
		e.Supersedes, e.ToolName, e.CreatedAt = o.ID, "web:correct", s.o.Now()
		if root := s.o.Current.Root; root != "" && s.o.Current.Key == o.Project {
			e.Citations = cite.Take(root, cite.Files(&e, ""))
		}
		added, err = s.o.DB.AddObservation(r.Context(), e)
	}
	s.saved(w, r, o, f, added.ID, err)
}

// formText is a form field's text with the browser's CRLF line breaks made LF.
func formText(v string) string { return strings.ReplaceAll(v, "\r\n", "\n") }

// unchanged returns stored when the form sent back what it was shown
// (control characters as visible escapes), so that an edit of one field
// does not rewrite another's escapes as text; else the form's text.
func unchanged(form, stored string) string {
	if v := formText(form); v != editable(stored) {
		return v
	}
	return stored
}

func (s *Server) confirmForget(w http.ResponseWriter, r *http.Request) {
	o, ok := s.load(w, r)
	if !ok {
		return
	}
	render(w, http.StatusOK, "forget", obsPage{page: s.page(fmt.Sprintf("Forget #%d", o.ID), o.Project), Obs: o})
}

// forget deletes the observation as `mem forget ID` does.
func (s *Server) forget(w http.ResponseWriter, r *http.Request) {
	o, ok := s.load(w, r)
	if !ok {
		return
	}
	if _, err := s.o.DB.DeleteRecords(r.Context(), []int64{o.ID}, nil); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/project?"+url.Values{"p": {o.Project}, "forgot": {fmt.Sprintf("#%d", o.ID)}}.Encode(),
		http.StatusSeeOther)
}

// ---- what the agent sees ----

type agentForm struct {
	Mode, Format, Compress, Session, Prompt string
	Budget                                  int
}

type agentPage struct {
	page
	Key     string
	Form    agentForm
	Result  recall.Result
	Bar     budgetBar
	Pending *pendingView
	Err     string
}

func (s *Server) agent(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	key := v.Get("p")
	f := agentForm{Mode: v.Get("mode"), Format: v.Get("format"), Compress: v.Get("compress"),
		Session: strings.TrimSpace(v.Get("session")), Prompt: v.Get("prompt")}
	p := agentPage{page: s.page("What the agent sees", key), Key: key}
	req, err := agentRequest(v, &f)
	p.Form = f
	if err == nil && key == "" && f.Session == "" {
		err = memory.Invalid("p", "a project key or a session id", "")
	}
	if err != nil {
		p.Err = err.Error()
		render(w, http.StatusBadRequest, "agent", p)
		return
	}
	req.Project = key
	if p.Result, err = remember.Recall(r.Context(), s.o.DB, req, s.o.Recall); err != nil {
		s.fail(w, r, err)
		return
	}
	if p.Key == "" {
		p.Key, p.Project = p.Result.Project, p.Result.Project
	}
	p.Form.Budget = p.Result.Budget
	p.Bar = newBudgetBar(p.Result)
	if f.Session != "" {
		pv, err := s.pending(r.Context(), f.Session)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		p.Pending = &pv
	}
	render(w, http.StatusOK, "agent", p)
}

// agentRequest reads the options of `mem inject` from the form.
func agentRequest(v url.Values, f *agentForm) (recall.Request, error) {
	var req recall.Request
	var err error
	if req.Mode, err = recall.ParseMode(f.Mode); err != nil {
		return req, err
	}
	f.Mode = string(req.Mode)
	if f.Format == "pretty" {
		return req, memory.Invalid("format", "xml or text", f.Format)
	}
	if req.Format, err = recall.ParseFormat(f.Format); err != nil {
		return req, err
	}
	f.Format = string(req.Format)
	if req.Compress, err = recall.ParseCompress(f.Compress); err != nil {
		return req, err
	}
	f.Compress = string(req.Compress)
	if b := strings.TrimSpace(v.Get("budget")); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 1 || n > 1_000_000 {
			return req, memory.Invalid("budget", "a number of tokens from 1 to 1000000", b)
		}
		req.Budget, f.Budget = n, n
	}
	if f.Session != "" {
		id, err := privacy.GivenSessionID("session", f.Session)
		if err != nil {
			return req, err
		}
		f.Session, req.SessionID = id, id
	}
	req.Prompt = f.Prompt
	return req, nil
}

// ---- switches ----

// toggle turns a project's injection or capture on or off in its .mem file,
// as `mem enable|disable [inject|capture]` does.
func (s *Server) toggle(w http.ResponseWriter, r *http.Request) {
	key, part, on := r.PostFormValue("p"), r.PostFormValue("part"), r.PostFormValue("on") == "1"
	if part != "inject" && part != "capture" {
		s.fail(w, r, memory.Invalid("part", "inject or capture", part))
		return
	}
	sessions, err := s.o.DB.ListSessions(r.Context(), store.SessionFilter{Project: key, Limit: 30})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	root := s.root(key, sessions)
	if root == "" {
		s.fail(w, r, memory.Invalid("p", "a project whose folder is known (the current one, or one a session ran in)", key))
		return
	}
	f, err := switches.ReadFile(root)
	if err != nil && f.Path == "" {
		s.fail(w, r, err)
		return
	}
	inject, capture := f.Inject, f.Capture
	if part == "inject" {
		inject = on
	} else {
		capture = on
	}
	if _, err := switches.WriteFile(root, inject, capture); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/project?"+url.Values{"p": {key}}.Encode(), http.StatusSeeOther)
}
