package web

import (
	"fmt"
	"net/http"

	"github.com/memhq/mem/internal/memory"
)

// feedbackDays is the window of the overview's table of what injected
// memory was worth (mem stats --since 30d).
const feedbackDays = 30

// mark records a person's verdict on an observation mem gives agents
// (useful, wrong, or none): what the overview's helpful and irrelevant
// rates count, as mem stats does.
func (s *Server) mark(w http.ResponseWriter, r *http.Request) {
	o, ok := s.load(w, r)
	if !ok {
		return
	}
	err := s.o.DB.MarkEntry(r.Context(), o.Project, memory.ObservationRef(o.ID), r.PostFormValue("verdict"), s.o.Now())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("/obs/%d?marked=1", o.ID), http.StatusSeeOther)
}

// verdict is a person's verdict on observation o, "" for none.
func (s *Server) verdict(r *http.Request, o memory.Observation) (string, error) {
	ref := memory.ObservationRef(o.ID)
	v, err := s.o.DB.Verdicts(r.Context(), o.Project, []string{ref})
	return v[ref], err
}
