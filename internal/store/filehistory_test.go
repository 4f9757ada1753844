package store

import (
	"context"
	"testing"

	"github.com/memhq/mem/internal/memory"
)

// A file's sessions' changes: counted per session over the file's
// spellings, a creation told apart, reads and other files and other
// sessions left out.
func TestFileSessionEdits(t *testing.T) {
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
	got, err := db.FileSessionEdits(ctx, "p", []string{"src/x.c", "/repo/src/x.c"}, []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]memory.FileEdits{"a": {Changes: 2, Created: true}, "b": {Changes: 2}}
	if len(got) != len(want) || got["a"] != want["a"] || got["b"] != want["b"] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got, err := db.FileSessionEdits(ctx, "other", []string{"src/x.c"}, []string{"a"}); err != nil || len(got) != 0 {
		t.Fatalf("another project: %+v, %v", got, err)
	}
}
