package interchange

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/memory"
)

// FuzzDecode feeds whole files to Decode: it never panics, a refusal is one
// line naming the line number, and whatever it accepts encodes and decodes
// again to the same bytes (so export -> import -> export is stable).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		goodSession + "\n" + goodObs + "\n",
		goodSession + "\n\n  \n" + goodObs,
		goodSession + "\n{oops\n" + goodObs,
		`{"kind":"observation","uuid":"u","session_id":"s","type":"note","title":"t","created_at":"2026-01-02T03:04:05.123456789+02:00","facts":["a"," a ",""]}`,
		`{"kind":"session","id":"s","project":"p","started_at":"0001-01-01T00:00:01Z","status":"ended"}`,
		"\x00\xff\n",
		`{"kind":"prompt","uuid":"p","session_id":"s","prompt_number":1e3,"created_at":"2026-01-02T03:04:05Z"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := Decode(bytes.NewReader(b))
		if err != nil {
			var le *memory.LineError
			if !errors.As(err, &le) && !strings.HasPrefix(err.Error(), "reading records") {
				t.Fatalf("refusal without a line number: %v", err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("refusal of more than one line: %q", err.Error())
			}
			return
		}
		var first, second bytes.Buffer
		enc := NewEncoder(&first)
		for _, r := range recs {
			if err := enc.Encode(r); err != nil {
				t.Fatalf("encoding an accepted record: %v", err)
			}
		}
		enc.Flush()
		again, err := Decode(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("decoding what was encoded: %v\n%s", err, first.Bytes())
		}
		enc = NewEncoder(&second)
		for _, r := range again {
			enc.Encode(r)
		}
		enc.Flush()
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("not stable:\n%s\n%s", first.Bytes(), second.Bytes())
		}
	})
}

// TestDecodeReportsFirstBadLine: with lines decoded in parallel chunks, the
// error is still that of the first bad line in the file.
func TestDecodeReportsFirstBadLine(t *testing.T) {
	for _, bad := range [][]int{{700, 1900}, {1999}, {1, 2}, {1500, 10}} {
		var b strings.Builder
		b.WriteString(goodSession + "\n")
		isBad := map[int]bool{}
		for _, n := range bad {
			isBad[n] = true
		}
		for n := 2; n <= 2000; n++ {
			if isBad[n] || (n == 2 && isBad[1]) {
				b.WriteString("{oops\n")
				continue
			}
			fmt.Fprintf(&b, `{"kind":"observation","uuid":"u%d","session_id":"s1","type":"note","title":"t%d","created_at":"2026-01-02T03:04:05Z"}`+"\n", n, n)
		}
		_, err := Decode(strings.NewReader(b.String()))
		var le *memory.LineError
		first := 2000
		for _, n := range bad {
			first = min(first, max(n, 2))
		}
		if !errors.As(err, &le) || le.Line != first {
			t.Errorf("bad lines %v: %v, want line %d", bad, err, first)
		}
	}
}
