package triggers

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/privacy"
)

// maxContextFile bounds what is read of one context file: its head, far
// more than the tokens one file may register.
const maxContextFile = 64 << 10

// readContextFile reads the head of the context file at rel ('/'-separated)
// in root. Only a regular file whose real path is inside root's real path
// is read: a link out of the project, a FIFO or a device is refused
// (fsafe.OpenIn) before a byte is read.
func readContextFile(root, rel string) (string, error) {
	return readHead(fsafe.OpenIn(root, filepath.FromSlash(rel)))
}

// readHead reads the head of a file fsafe opened.
func readHead(f *os.File, err error) (string, error) {
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxContextFile))
	if err != nil {
		return "", err
	}
	return strings.ToValidUTF8(string(b), ""), nil
}

// filterMargin is how far past what a cut keeps the privacy filter reads,
// so that a secret crossing the cut is redacted whole.
const filterMargin = 2 << 10

// contextText is a context file's text as it is registered: through the
// privacy filter, then cut to budget tokens. Every text a file brings
// passes here once, before it is stored or delivered. The filter (what
// costs) reads only the head the cut can keep plus a margin, ended at a line
// break, which no secret the filter knows crosses (a private-key block or a
// <private> part left open is hidden to the end).
func contextText(text string, budget int) string {
	text = strings.TrimSpace(text)
	if n := len(Trim(text, budget)) + filterMargin; n < len(text) {
		head := text[:n]
		if i := strings.LastIndexByte(head, '\n'); i > 0 {
			head = head[:i]
		} else if i := strings.LastIndexAny(head, " \t"); i > 0 {
			head = head[:i]
		}
		text = strings.ToValidUTF8(head, "")
	}
	return Trim(privacy.Filter(text), budget)
}
