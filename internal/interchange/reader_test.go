package interchange

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/memory"
)

// obsLine is a valid observation line with its own uuid.
func obsLine(i int) string {
	return fmt.Sprintf(`{"kind":"observation","uuid":"u%d","session_id":"s1","type":"note","title":"t%d","created_at":"2026-01-02T03:04:05Z"}`, i, i)
}

// TestReaderStreams reads a file of many batches: every record once, in
// file order, with its line number, in batches of at most batchLines.
func TestReaderStreams(t *testing.T) {
	const n = 5*batchLines + 17
	var b strings.Builder
	b.WriteString(goodSession + "\n\n")
	for i := range n {
		b.WriteString(obsLine(i) + "\n")
	}
	rd := NewReader(strings.NewReader(b.String()))
	defer rd.Close()
	var got []memory.Record
	batches := 0
	for {
		batch, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) > batchLines {
			t.Errorf("batch of %d records, want at most %d", len(batch), batchLines)
		}
		batches++
		got = append(got, batch...)
	}
	if len(got) != n+1 || batches < 6 {
		t.Fatalf("%d records in %d batches, want %d in at least 6", len(got), batches, n+1)
	}
	for i, r := range got[1:] {
		if r.Observation == nil || r.Observation.UUID != fmt.Sprintf("u%d", i) || r.Line != i+3 {
			t.Fatalf("record %d: %+v (line %d), want u%d at line %d", i, r.Observation, r.Line, i, i+3)
		}
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Errorf("Next after the end: %v, want io.EOF", err)
	}
}

// TestReaderFirstBadLine: with bad lines in several batches, the error is
// the first's, whichever worker decoded it first.
func TestReaderFirstBadLine(t *testing.T) {
	lines := make([]string, 4*batchLines)
	for i := range lines {
		lines[i] = obsLine(i)
	}
	first := 2*batchLines + 5
	lines[first-1] = `{"kind":"memo"}`
	lines[3*batchLines+1] = `{"kind":`
	_, err := Decode(strings.NewReader(strings.Join(lines, "\n")))
	var le *memory.LineError
	if !errors.As(err, &le) || le.Line != first {
		t.Fatalf("Decode: %v, want a LineError for line %d", err, first)
	}
}

// TestReaderLongLine: a line past MaxLine is refused with its number after
// the lines before it were returned.
func TestReaderLongLine(t *testing.T) {
	in := obsLine(1) + "\n" + obsLine(2) + "\n" + strings.Repeat("x", MaxLine+1) + "\n"
	rd := NewReader(strings.NewReader(in))
	defer rd.Close()
	batch, err := rd.Next()
	if err != nil || len(batch) != 2 {
		t.Fatalf("first batch: %d records, %v", len(batch), err)
	}
	_, err = rd.Next()
	var le *memory.LineError
	if !errors.As(err, &le) || le.Line != 3 {
		t.Fatalf("Next: %v, want a LineError for line 3", err)
	}
}

// TestReaderCloseEarly: a caller that stops after the first batch closes
// the reader, and its goroutines end although the input goes on.
func TestReaderCloseEarly(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		for i := 0; ; i++ {
			if _, err := io.WriteString(pw, obsLine(i)+"\n"); err != nil {
				return
			}
		}
	}()
	rd := NewReader(pr)
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	rd.Close()
	pr.Close() // what closing the file does: the scanner's next read fails
	for range rd.out {
	}
}
