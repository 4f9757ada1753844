package interchange

import (
	"fmt"
	"io"
	"strings"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/termsafe"
	"github.com/memhq/mem/internal/text"
)

// MarkdownSections are the sections of the Markdown mirror, in order: the
// durable kinds of memory a person reviews.
var MarkdownSections = []struct {
	Heading string
	Type    memory.Type
}{
	{"Decisions", memory.TypeDecision},
	{"Warnings", memory.TypeWarning},
	{"Patterns", memory.TypePattern},
	{"Open problems", memory.TypeProblem},
}

// MarkdownTypes are the observation types the Markdown mirror holds, and
// the repository's memory file (RepoFile) too: the durable kinds a team
// reviews in a pull request.
func MarkdownTypes() []memory.Type {
	ts := make([]memory.Type, len(MarkdownSections))
	for i, s := range MarkdownSections {
		ts[i] = s.Type
	}
	return ts
}

// WriteMarkdown writes a project's durable memory as Markdown: a section per
// kind, each observation a heading with its id and title, a line with its
// date and files, its narrative quoted and its facts as a list. obs come
// oldest first; the output depends on them only (no time of writing), so
// the same memory gives the same bytes and a new observation adds lines at
// the end of its section. Markup and control characters in the text are
// escaped: a title or narrative cannot open a section of its own.
func WriteMarkdown(w io.Writer, project string, obs []memory.Observation) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Memory of %s\n\n", inline(project))
	b.WriteString("Written by `mem export --format markdown`: the project's decisions, warnings, patterns and open\n")
	b.WriteString("problems, oldest first. `mem get ID` shows a record in full. Dates are UTC.\n")
	for _, s := range MarkdownSections {
		var in []*memory.Observation
		for i := range obs {
			if obs[i].Type == s.Type {
				in = append(in, &obs[i])
			}
		}
		fmt.Fprintf(&b, "\n## %s\n", s.Heading)
		if len(in) == 0 {
			b.WriteString("\nNone.\n")
		}
		for _, o := range in {
			fmt.Fprintf(&b, "\n### #%d %s\n\n", o.ID, inline(o.Title))
			fmt.Fprintf(&b, "%s", o.CreatedAt.UTC().Format("2006-01-02"))
			if files := append(append([]string{}, o.FilesModified...), o.FilesRead...); len(files) > 0 {
				for i := range files {
					files[i] = "`" + strings.ReplaceAll(inline(files[i]), "`", "'") + "`"
				}
				fmt.Fprintf(&b, " · %s", strings.Join(files, ", "))
			}
			b.WriteString("\n")
			if n := strings.TrimSpace(o.Narrative); n != "" {
				b.WriteString("\n")
				for _, l := range strings.Split(n, "\n") {
					b.WriteString(strings.TrimRight("> "+inline(l), " ") + "\n")
				}
			}
			if len(o.Facts) > 0 {
				b.WriteString("\n")
				for _, f := range o.Facts {
					fmt.Fprintf(&b, "- %s\n", inline(f))
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// inline is one line of text made safe in Markdown: markup escaped, control
// characters shown escaped, line breaks as spaces.
func inline(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
	return text.EscapeXML(termsafe.Line(s))
}
