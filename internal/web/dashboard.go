package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/switches"
)

// The pages of the viewer as a place to live in: the feed across projects
// (on the overview), the project switcher and the search box of every
// page's header, search across projects, the effective settings and the
// hook log.

func (s *Server) dashboardRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /search", s.searchAll)
	mux.HandleFunc("GET /settings", s.settings)
	mux.HandleFunc("GET /log", s.hookLog)
}

// Switcher is the project switcher's list: the current project, then every
// project with a session, most recently active first.
func (p page) Switcher() []string {
	if p.keys == nil {
		return nil
	}
	return p.keys()
}

// projectKeys lists the projects for the switcher. It runs while a page
// renders, after the page's own reads: a failure leaves the switcher empty
// (the page still shows), bounded in time like a request.
func (s *Server) projectKeys() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	keys, err := s.o.DB.ProjectKeys(ctx)
	if err != nil {
		keys = nil
	}
	if cur := s.o.Current.Key; cur != "" && !slices.Contains(keys, cur) {
		keys = append([]string{cur}, keys...)
	}
	return keys
}

// feedSize is how many of the newest records the overview's feed shows.
const feedSize = 20

// feed is the newest observations and summaries of every project, newest
// first: search's listing of a query without text, over all projects.
func (s *Server) feed(ctx context.Context) ([]search.Hit, error) {
	return search.Search(ctx, s.o.DB, search.Query{AllProjects: true, Limit: feedSize,
		Kinds: []search.Kind{search.KindObservation, search.KindSummary}})
}

// ---- search across projects ----

type searchPage struct {
	page
	// Key is empty: the form and the results are those of every project.
	Key  string
	All  bool
	Form searchForm
	Hits []search.Hit
	Err  string
	Next string
}

// searchAll is `mem search --all-projects` with the filters of the project
// page.
func (s *Server) searchAll(w http.ResponseWriter, r *http.Request) {
	p := searchPage{page: s.page("Search every project", ""), All: true}
	q, form, err := searchQuery(r.URL.Query(), "", p.Now)
	q.AllProjects = true
	p.Form = form
	// An empty form lists nothing: the feed on the overview is the listing.
	res, err := s.searched(r, q, err, strings.TrimSpace(form.Q) != "" || hasFilters(form))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p.Hits, p.Err, p.Next = res.hits, res.refused, res.next
	render(w, res.status, "search", p)
}

// searchResult is what a page shows of a search.
type searchResult struct {
	hits    []search.Hit
	refused string // a form search refused, shown on the page (400)
	next    string // the address of the next page of hits
	status  int
}

// searched runs q (read from the form with formErr) when run is set; err is
// a failure that is not the form's. Its hits are checked as mem search
// checks them: a hit whose cited files changed or went carries its note,
// one the instruction check holds back its flag. The viewer only reads, so
// what the check learnt is not kept.
func (s *Server) searched(r *http.Request, q search.Query, formErr error, run bool) (searchResult, error) {
	res := searchResult{status: http.StatusOK}
	err := formErr
	if err == nil && run {
		res.hits, _, err = remember.Search(r.Context(), s.o.DB, q)
	}
	switch {
	case memory.IsInvalid(err):
		res.refused, res.status = err.Error(), http.StatusBadRequest
	case err != nil:
		return res, err
	case len(res.hits) == q.Limit && q.Offset+2*q.Limit <= search.MaxLimit:
		v := r.URL.Query()
		v.Set("offset", strconv.Itoa(q.Offset+q.Limit))
		res.next = r.URL.Path + "?" + v.Encode()
	}
	return res, nil
}

func hasFilters(f searchForm) bool {
	return len(f.Types) > 0 || len(f.Kinds) > 0 || f.Session != "" || f.File != "" || f.Since != "" || f.Until != ""
}

// ---- settings ----

type settingsPage struct {
	page
	File     string
	Settings []config.Setting
	Current  string
	Root     string
	Source   string
	Switches *switches.Decision
}

// settings shows what `mem config show` prints in the folder mem web was
// started in, with every credential hidden.
func (s *Server) settings(w http.ResponseWriter, r *http.Request) {
	p := settingsPage{page: s.page("Settings", s.o.Current.Key), Current: s.o.Current.Key,
		Root: s.o.Current.Root, Source: string(s.o.Current.Source)}
	if c := s.o.Config; c != nil {
		p.File = c.File
		p.Settings = c.All() // credentials hidden, as mem config show hides them
	}
	if s.o.Current.Key != "" {
		d := s.o.Switches(s.o.Current.Root)
		p.Switches = &d
	}
	render(w, http.StatusOK, "settings", p)
}

// ---- hook log ----

// logTail bounds what the log page reads: the end of the file.
const logTail = 64 << 10

type logPage struct {
	page
	Path      string
	Text      string
	Missing   bool
	Cut       bool // the file is longer: only its end is shown
	Size      int64
	Err       string
	Modified  time.Time
	LineCount int
}

// hookLog shows the end of hook.log, where mem hook writes what went wrong
// without failing the editor.
func (s *Server) hookLog(w http.ResponseWriter, r *http.Request) {
	p := logPage{page: s.page("Hook log", s.o.Current.Key)}
	if s.o.Config != nil {
		p.Path = s.o.Config.Settings.Hook.Log
	}
	if p.Path == "" {
		p.Missing = true
		render(w, http.StatusOK, "log", p)
		return
	}
	text, info, err := tail(p.Path, logTail)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.Missing = true
	case err != nil:
		p.Err = err.Error()
	default:
		p.Size, p.Modified, p.Cut = info.size, info.modified, info.cut
		p.Text = text
		p.LineCount = strings.Count(text, "\n")
	}
	render(w, http.StatusOK, "log", p)
}

type tailInfo struct {
	size     int64
	modified time.Time
	cut      bool
}

// tail reads the last max bytes of a regular file (never a FIFO or a
// device), starting at a line when it had to cut.
func tail(path string, max int64) (string, tailInfo, error) {
	f, err := fsafe.Open(path)
	if err != nil {
		return "", tailInfo{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", tailInfo{}, err
	}
	info := tailInfo{size: fi.Size(), modified: fi.ModTime()}
	if fi.Size() > max {
		info.cut = true
		if _, err := f.Seek(fi.Size()-max, io.SeekStart); err != nil {
			return "", info, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil {
		return "", info, fmt.Errorf("reading %s: %w", path, err)
	}
	text := string(b)
	if info.cut {
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i+1:]
		}
	}
	return text, info, nil
}
