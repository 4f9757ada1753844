package text

import (
	"strings"

	"github.com/memhq/mem/internal/lazy"
)

// xmlEscaper leaves ' alone: every attribute mem writes is in double quotes,
// where ' is plain text, as it is between tags.
var xmlEscaper = &lazy.Value[*strings.Replacer]{New: func() *strings.Replacer {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
}}

// EscapeXML makes s safe as XML text or as a double-quoted attribute value:
// each invalid UTF-8 byte becomes U+FFFD, the characters XML 1.0 cannot carry
// (control characters other than tab, newline and carriage return; U+FFFE,
// U+FFFF) are dropped, and & < > " are escaped.
func EscapeXML(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return -1
		}
		return r
	}, s)
	return xmlEscaper.Get().Replace(s)
}
