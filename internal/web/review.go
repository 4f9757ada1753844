package web

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

// The review page: the records the instruction check holds back from the
// agent (internal/guard), each with the rule and the text it matched, to
// release (a person read it: not an instruction) or forget, as `mem review`
// does.

type reviewPage struct {
	page
	Key     string
	Flagged store.Flagged
	Done    string
}

func (s *Server) review(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("p")
	if key == "" {
		s.fail(w, r, memory.Invalid("p", "a project key", ""))
		return
	}
	f, err := s.o.DB.FlaggedRecords(r.Context(), key, r.URL.Query().Get("all") != "", 200)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	render(w, http.StatusOK, "review", reviewPage{page: s.page("Review", key), Key: key, Flagged: f,
		Done: r.URL.Query().Get("done")})
}

// reviewAction releases or forgets one record named by the form's ref
// (#12 or S3) in the form's project.
func (s *Server) reviewAction(w http.ResponseWriter, r *http.Request) {
	key, ref, action := r.PostFormValue("p"), r.PostFormValue("ref"), r.PathValue("action")
	rf, err := memory.ParseRef("ref", ref)
	if err != nil || rf.Prompt || key == "" {
		s.fail(w, r, memory.Invalid("ref", "an observation (#12) or summary (S3) of a project", ref))
		return
	}
	var obs, sums []int64
	if rf.Summary {
		sums = []int64{rf.ID}
	} else {
		obs = []int64{rf.ID}
	}
	done := ""
	switch action {
	case "release":
		err = s.o.DB.Release(r.Context(), key, obs, sums)
		done = "released " + rf.String()
	case "forget":
		_, err = s.o.DB.DeleteRecords(r.Context(), obs, sums)
		done = "forgot " + rf.String()
	default:
		err = fmt.Errorf("review action %q: %w", action, memory.ErrNotFound)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/review?"+url.Values{"p": {key}, "done": {done}}.Encode(), http.StatusSeeOther)
}
