package store

import (
	"context"
	"maps"
	"testing"

	"github.com/memhq/mem/internal/memory"
)

// A file's sessions' changes: counted per session and spelling, the
// largest (an observation that names both counts once), reads and other
// files and other sessions left out; its creator
// is the session of its first change when that change created it.
func TestFileHistoryChangesAndCreator(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	for _, sid := range []string{"a", "b", "c", "d"} {
		if _, _, err := db.StartSession(ctx, memory.Session{ID: sid, Project: "p"}); err != nil {
			t.Fatal(err)
		}
	}
	add := func(sid, title string, read, modified []string) {
		t.Helper()
		if _, err := db.AddObservation(ctx, memory.Observation{SessionID: sid, Type: memory.TypeChange, Title: title,
			FilesRead: read, FilesModified: modified}); err != nil {
			t.Fatal(err)
		}
	}
	add("a", "Created src/x.c (40 lines)", nil, []string{"src/x.c"})
	add("a", "Edited src/x.c: one", nil, []string{"src/x.c"})
	add("b", "Edited src/x.c: two", nil, []string{"/repo/src/x.c"})
	add("b", "Edited src/x.c: three", nil, []string{"src/x.c", "/repo/src/x.c"})
	add("b", "Edited src/y.c", nil, []string{"src/y.c"})
	add("c", "Read src/x.c", []string{"src/x.c"}, nil)
	add("d", "Edited src/x.c: not asked", nil, []string{"src/x.c"})
	h, err := db.FileHistory(ctx, "p", []string{"src/x.c", "/repo/src/x.c"}, 60)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"a": 2, "b": 2, "d": 1}; !maps.Equal(h.Changes, want) {
		t.Fatalf("FileHistory's changes: got %v, want %v", h.Changes, want)
	}
	if h, err := db.FileHistory(ctx, "other", []string{"src/x.c"}, 60); err != nil || len(h.Changes) != 0 || len(h.Sessions) != 0 {
		t.Fatalf("another project: %+v, %v", h, err)
	}
	for _, c := range []struct {
		paths []string
		want  string
	}{
		{[]string{"src/x.c", "/repo/src/x.c"}, "a"},
		{[]string{"/repo/src/x.c", "src/x.c"}, "a"},
		{[]string{"/repo/src/x.c"}, ""}, // its first change there is b's edit
		{[]string{"src/y.c"}, ""},       // edited, never seen created
		{[]string{"src/z.c"}, ""},
	} {
		if h, err := db.FileHistory(ctx, "p", c.paths, 60); err != nil || h.Creator != c.want {
			t.Errorf("creator of %v: %q, %v; want %q", c.paths, h.Creator, err, c.want)
		}
	}
}
