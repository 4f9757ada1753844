package web

import (
	"fmt"
	"net/http"
	"time"
)

// events streams a "change" event (server-sent events) whenever anything
// committed to the database, by this server, a hook or any other mem
// process: the page then fetches itself again and swaps its live parts.
// Looking costs one PRAGMA data_version per Poll.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "mem web: streaming is not supported here", http.StatusInternalServerError)
		return
	}
	watch, err := s.o.DB.Watch(ctx)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer watch.Close()
	last, err := watch.Version(ctx)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// The browser reconnects after retry ms when the stream breaks.
	fmt.Fprint(w, "retry: 1000\n: connected\n\n")
	fl.Flush()
	tick := time.NewTicker(s.o.Poll)
	defer tick.Stop()
	keepAlive := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		v, err := watch.Version(ctx)
		if err != nil {
			return // the browser reconnects
		}
		switch {
		case v != last:
			last = v
			fmt.Fprintf(w, "event: change\ndata: %d\n\n", v)
		case time.Since(keepAlive) > 15*time.Second:
			fmt.Fprint(w, ": alive\n\n")
		default:
			continue
		}
		keepAlive = time.Now()
		fl.Flush()
	}
}
