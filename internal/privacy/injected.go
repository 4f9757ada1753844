package privacy

import "strings"

// escaping is how an editor may have escaped the markup of a block mem
// injected before handing it back: the opening and closing angle brackets.
type escaping struct{ lt, gt string }

var escapings = []escaping{
	{"<", ">"},
	{"&lt;", "&gt;"},         // XML-escaped (Gemini's <hook_context>)
	{"&amp;lt;", "&amp;gt;"}, // escaped twice
	{`\u003c`, `\u003e`},     // JSON-escaped
	{`\u003C`, `\u003E`},
}

// injectedTags are the elements mem injects, by the start of their opening
// tag as mem writes it (name and first attribute), so that prose naming a
// tag is left alone; the attribute's quote may be escaped too.
var injectedTags = []struct{ open, name string }{
	{"memory_context project=", "memory_context"}, // start and compaction blocks
	{"mem_context note=", "mem_context"},          // prompt-time and file-activity context
}

// wrapper is the element an editor wraps hook context in; it is removed
// when nothing but mem's blocks was in it.
const wrapper = "hook_context"

// StripInjected removes the blocks mem itself injected into an agent's
// context (<memory_context project=...>, <mem_context note=...>), raw or
// escaped as an editor hands them back, and an editor's <hook_context>
// wrapper left empty by that, so that mem never stores its own output as
// what the user or the agent wrote. A block that is never closed runs to the
// end of the text. Text without such a block comes back as it is.
func StripInjected(text string) string {
	if !strings.Contains(text, "_context") {
		return text
	}
	for {
		out := stripInjectedOnce(text)
		if out == text {
			return text
		}
		// Removing a block may join the halves of another tag: strip
		// again, so that stripped text strips to itself.
		text = strings.TrimSpace(out)
	}
}

func stripInjectedOnce(text string) string {
	for _, e := range escapings {
		for _, t := range injectedTags {
			text = cutElements(text, e.lt+t.open, e.lt+"/"+t.name+e.gt, false)
		}
	}
	for _, e := range escapings {
		text = cutElements(text, e.lt+wrapper+e.gt, e.lt+"/"+wrapper+e.gt, true)
	}
	return text
}

// cutElements removes every part of text from open to the first close after
// it (or to the end when there is none); with onlyBlank, only the parts with
// nothing but white space between the tags.
func cutElements(text, open, close string, onlyBlank bool) string {
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(text[i:], open)
		if j < 0 {
			break
		}
		j += i
		body := j + len(open)
		k := strings.Index(text[body:], close)
		if onlyBlank && (k < 0 || strings.TrimSpace(text[body:body+k]) != "") {
			b.WriteString(text[i:body])
			i = body
			continue
		}
		b.WriteString(text[i:j])
		if k < 0 {
			i = len(text)
			break
		}
		i = body + k + len(close)
	}
	if i == 0 {
		return text
	}
	b.WriteString(text[i:])
	return b.String()
}
