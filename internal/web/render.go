package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/termsafe"
	"github.com/memhq/mem/internal/text"
)

//go:embed assets
var assets embed.FS

// pages are the templates, parsed on first use.
var pages = lazy.Value[*template.Template]{New: parsePages}

func parsePages() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"show":  show,
		"line":  showLine,
		"mark":  mark,
		"day":   func(t time.Time) string { return t.UTC().Format("2006-01-02") },
		"stamp": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"ago":   ago,
		// duration writes a Go duration ("168h0m0s") as a person reads it (7d).
		"duration": func(s string) string {
			if d, err := time.ParseDuration(s); err == nil {
				return text.Duration(d)
			}
			return s
		},
		"join": strings.Join,
		"pct":  func(f float64) string { return fmt.Sprintf("%.1f", f) },
		// percent writes a share (0.25) as a person reads it (25%).
		"percent": func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
		"score":   func(f float64) string { return fmt.Sprintf("%.3f", f) },
		"types":   memory.Types,
		"field":   editable,
		"lines":   func(l []string) string { return editable(strings.Join(l, "\n")) },
		"kinds":   func() []string { return []string{"observation", "summary", "prompt"} },
		"switchArgs": func(csrf, key, part string, on bool, why string) switchArg {
			return switchArg{CSRF: csrf, Key: key, Part: part, On: on, Why: why}
		},
	}).ParseFS(assets, "assets/templates/*.html"))
}

// switchArg is what one switch's form shows.
type switchArg struct {
	CSRF, Key, Part string
	On              bool
	Why             string
}

// static serves the embedded stylesheet and script.
func static() http.Handler {
	sub, _ := fs.Sub(assets, "assets/static")
	return http.StripPrefix("/static/", http.FileServerFS(sub))
}

// render writes page name with data, or a plain error when it fails.
func render(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := pages.Get().ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, "mem web: rendering "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// show returns stored text as HTML: markup escaped, line breaks kept, and
// every other control character (escape sequences, bidirectional
// overrides, U+2028) and invalid byte written as a visible escape, set off
// so that it cannot pass for the text around it.
func show(s string) template.HTML { return visible(s, true) }

// showLine is show for one line: line breaks are shown as \n too.
func showLine(s string) template.HTML { return visible(s, false) }

func visible(s string, layout bool) template.HTML {
	var b strings.Builder
	start := 0
	flush := func(end int) {
		b.WriteString(template.HTMLEscapeString(s[start:end]))
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		bad := r == utf8.RuneError && n <= 1
		if bad || termsafe.IsControl(r) && !(layout && (r == '\n' || r == '\t')) {
			flush(i)
			b.WriteString(`<span class="esc">`)
			b.WriteString(template.HTMLEscapeString(termsafe.Line(s[i : i+n])))
			b.WriteString(`</span>`)
			start = i + n
		}
		i += n
	}
	flush(len(s))
	return template.HTML(b.String())
}

// editable is text as a form shows it for editing: control characters as
// visible escapes, line breaks kept. A field sent back unchanged keeps the
// stored text (see unchanged).
func editable(s string) string { return termsafe.Text(s) }

// mark shows text with the words of query highlighted: a snippet's
// [bracketed] words, and any word whose stem is one of the query's.
func mark(s, query string) template.HTML {
	stems := map[string]bool{}
	for _, w := range search.Words(query) {
		stems[text.Stem(w)] = true
	}
	if len(stems) == 0 {
		return showLine(s)
	}
	var b strings.Builder
	for i, f := range strings.Split(s, " ") {
		if i > 0 {
			b.WriteByte(' ')
		}
		inner := f
		if len(f) > 2 && strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") {
			inner = f[1 : len(f)-1]
		}
		hit := false
		for _, w := range search.Words(inner) {
			if stems[text.Stem(w)] {
				hit = true
				break
			}
		}
		if !hit {
			b.WriteString(string(showLine(f)))
			continue
		}
		b.WriteString("<mark>")
		b.WriteString(string(showLine(inner)))
		b.WriteString("</mark>")
	}
	return template.HTML(b.String())
}

// ago says how long before now t was, roughly.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "never"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}
