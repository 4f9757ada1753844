package text

import "strings"

// ShellQuote quotes s for a POSIX shell: single quotes around it, and each
// single quote in it closes them, is escaped and reopens them.
func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
