package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/memhq/mem/internal/termsafe"
)

// Text is where a command prints for a person (not JSON, not a block for an
// agent): the output with control characters written as visible escapes
// (\x1b, \u2028; line breaks and tabs kept), so that stored text, which came
// from tool output, files and events, cannot drive the terminal.
func (a *App) Text() io.Writer { return termsafe.NewWriter(a.Out) }

// PrintJSON writes v as indented JSON.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// day formats a time as a date for compact listings.
func day(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02")
}

// Stamp formats a time to the minute.
func Stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// field prints "name: value" when value is not empty.
func field(w io.Writer, name, value string) {
	if strings.TrimSpace(value) == "" {
		return
	}
	if strings.Contains(value, "\n") {
		fmt.Fprintf(w, "%s:\n  %s\n", name, strings.ReplaceAll(value, "\n", "\n  "))
		return
	}
	fmt.Fprintf(w, "%s: %s\n", name, value)
}

// listField prints a list as "name: a, b, c" when it has items.
func listField(w io.Writer, name string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "%s: %s\n", name, strings.Join(items, ", "))
}
