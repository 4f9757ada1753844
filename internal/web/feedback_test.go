package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// TestMarkCountsInTheOverview: a person marks injected observations useful
// or wrong on their page (a POST with the CSRF token; a bad verdict or no
// token changes nothing); the overview's table counts them as mem stats
// does.
func TestMarkCountsInTheOverview(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 11, 0, 0, 0, time.UTC)
	var given []memory.Injection
	for _, id := range f.ids {
		given = append(given, memory.Injection{Project: testProject, SessionID: f.session, Channel: memory.ChannelStart,
			Ref: memory.ObservationRef(id), Tokens: 10, At: at})
	}
	if err := f.db.AddInjections(ctx, given); err != nil {
		t.Fatal(err)
	}
	overview := func() string {
		t.Helper()
		w := f.do(t, "GET", "/", nil, nil)
		body := w.Body.String()
		i := strings.Index(body, `id="feedback"`)
		if w.Code != 200 || i < 0 {
			t.Fatalf("overview: %d, feedback section %d", w.Code, i)
		}
		return body[i : i+strings.Index(body[i:], "</section>")]
	}
	if s := overview(); !strings.Contains(s, `<td class="helpful">0%</td>`) || !strings.Contains(s, "30 of 30 (100%)") {
		t.Errorf("before any mark: %s", s)
	}
	mark := func(id int64, verdict string, form url.Values) int {
		t.Helper()
		form.Set("verdict", verdict)
		return f.do(t, "POST", fmt.Sprintf("/obs/%d/mark", id), form, nil).Code
	}
	if c := mark(f.ids[0], "useful", url.Values{}); c != http.StatusForbidden {
		t.Errorf("a mark without the CSRF token: %d, want 403", c)
	}
	if c := mark(f.ids[0], "great", f.form(url.Values{})); c != http.StatusBadRequest {
		t.Errorf("verdict great: %d, want 400", c)
	}
	if s := overview(); !strings.Contains(s, `<td class="helpful">0%</td>`) {
		t.Errorf("a refused mark counted: %s", s)
	}
	if c := mark(f.ids[0], "useful", f.form(url.Values{})); c != http.StatusSeeOther {
		t.Fatalf("mark useful: %d", c)
	}
	if c := mark(f.ids[1], "wrong", f.form(url.Values{})); c != http.StatusSeeOther {
		t.Fatalf("mark wrong: %d", c)
	}
	s := overview()
	for _, want := range []string{`<td class="helpful">33%</td>`, `<td class="irrelevant">33%</td>`, "20 of 30 (67%)"} {
		if !strings.Contains(s, want) {
			t.Errorf("after the marks the overview lacks %q: %s", want, s)
		}
	}
	page := f.do(t, "GET", fmt.Sprintf("/obs/%d?marked=1", f.ids[1]), nil, nil).Body.String()
	if !strings.Contains(page, `<b id="verdict-now">wrong</b>`) || !strings.Contains(page, `id="marked"`) {
		t.Errorf("the page does not show the verdict given")
	}
	// Cleared, it counts no more.
	if c := mark(f.ids[1], "", f.form(url.Values{})); c != http.StatusSeeOther {
		t.Fatalf("clear: %d", c)
	}
	if s := overview(); !strings.Contains(s, `<td class="irrelevant">0%</td>`) {
		t.Errorf("a cleared verdict still counts: %s", s)
	}
}
