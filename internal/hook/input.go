package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxEvent bounds an event as the hook parses it, once every long string in
// it is shortened (readEvent); an event still larger than this is made of
// millions of small values, which no editor sends: it is dropped, logged.
const MaxEvent = 16 << 20

// maxString bounds each string of an event as the hook parses it: a longer
// one (a tool's output, a file written whole) keeps its first and last
// maxString/2 bytes around a mark. Capture reads at most the first 64 KiB of
// a field and the first and last 32 KiB of an output (internal/capture), and
// a prompt is stored up to 64 KiB, so what mem records does not change. What
// changes is the time: a 100 MB event is read, shortened and parsed in a
// fraction of the hook's deadline instead of taking seconds longer than it.
// Everything after the reading (decoding, the record in the spool, capture's
// patterns and privacy filter) costs in proportion to maxString, so it is
// kept at a few times what capture reads.
const maxString = 256 << 10

// cutMark replaces the middle of a shortened string (JSON string content).
const cutMark = `\n…\n`

// readChunk is how much of the input is read at a time.
const readChunk = 1 << 20

// readEvent reads a JSON event from in, shortening every string longer than
// maxString as it goes (so memory stays bounded however large the input).
// Input that is not JSON passes through as it is, for the adapter to refuse.
// A middle that is cut out and holds the word "private" (in any case) takes
// the end of the string with it: that end could close a private part whose
// opening was cut out, and would then be stored.
func readEvent(in io.Reader) ([]byte, error) {
	widenPipe(in)
	c := condenser{}
	buf := make([]byte, readChunk)
	for {
		n, err := in.Read(buf)
		c.write(buf[:n])
		if c.out.Len() > MaxEvent {
			return nil, fmt.Errorf("event larger than %d MiB once its long strings are shortened: ignored", MaxEvent>>20)
		}
		if errors.Is(err, io.EOF) {
			return c.out.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// condenser shortens the long strings of the JSON it is written.
type condenser struct {
	out     bytes.Buffer
	inStr   bool
	esc     bool // the previous byte of the string began an escape
	start   int  // where the current string's content begins in out
	n       int  // length of the current string's content so far
	cutting bool // the string is past maxString: out holds its head only
	tail    []byte
	carry   []byte // the last bytes of the part cut out so far
	hidden  bool   // the part cut out holds "private": the end goes too
}

func (c *condenser) write(p []byte) {
	// The next quote and the next backslash are each looked for once per
	// chunk (IndexByte runs many bytes at a time), not again at every
	// string or escape.
	quote, slash := -2, -2 // -2: not looked for yet; -1: none left
	for i := 0; i < len(p); {
		quote = nextFrom(p, i, '"', quote)
		if !c.inStr {
			if quote < 0 {
				c.out.Write(p[i:])
				return
			}
			c.out.Write(p[i : quote+1])
			i = quote + 1
			c.inStr, c.esc, c.n, c.cutting, c.start = true, false, 0, false, c.out.Len()
			c.tail, c.carry, c.hidden = c.tail[:0], c.carry[:0], false
			continue
		}
		// In a string: find its end, an unescaped quote.
		from, end := i, -1
		for i < len(p) {
			if c.esc {
				c.esc = false
				i++
				continue
			}
			quote, slash = nextFrom(p, i, '"', quote), nextFrom(p, i, '\\', slash)
			j := quote
			if j < 0 || slash >= 0 && slash < j {
				j = slash
			}
			if j < 0 {
				i = len(p)
				break
			}
			if p[j] == '\\' {
				c.esc = true
				i = j + 1
				continue
			}
			end = j
			break
		}
		if end < 0 {
			c.content(p[from:])
			return
		}
		c.content(p[from:end])
		c.finish()
		c.out.WriteByte('"')
		c.inStr = false
		i = end + 1
	}
}

// content adds seg to the current string.
func (c *condenser) content(seg []byte) {
	c.n += len(seg)
	if !c.cutting {
		c.out.Write(seg)
		if c.n <= maxString {
			return
		}
		// Past the bound: keep the head, and the rest as the tail so far.
		c.cutting = true
		s := c.out.Bytes()[c.start:]
		head := safeEnd(s, maxString/2)
		c.tail = append(c.tail[:0], s[head:]...)
		c.out.Truncate(c.start + head)
		c.keepTail()
		return
	}
	if keep := tailKeep + tailContext; len(seg) >= keep {
		// The tail so far and all of seg but its end are cut out: looked
		// at where they are, and only what may be kept is copied.
		c.scanPrivate(c.tail)
		c.scanPrivate(seg[:len(seg)-keep])
		c.tail = append(c.tail[:0], seg[len(seg)-keep:]...)
		return
	}
	c.tail = append(c.tail, seg...)
	c.keepTail()
}

// tailKeep is how much of a cut string's end is kept, and tailContext the
// bytes before it kept to tell where an escape begins.
const (
	tailKeep    = maxString / 2
	tailContext = 8
)

// keepTail drops from c.tail what can no longer be part of the kept end,
// looking for "private" in what it drops.
func (c *condenser) keepTail() {
	if len(c.tail) < 2*(tailKeep+tailContext) {
		return
	}
	drop := len(c.tail) - (tailKeep + tailContext)
	c.scanPrivate(c.tail[:drop])
	c.tail = append(c.tail[:0], c.tail[drop:]...)
}

// scanPrivate looks for "private", in any case, in text that is cut out:
// at each v (a rare letter, found many bytes at a time), in the bytes around
// it, the last few bytes of the text before kept for a word split between
// two calls.
func (c *condenser) scanPrivate(text []byte) {
	if c.hidden || len(text) == 0 {
		return
	}
	edge := append(c.carry, text[:min(len(text), len(word)-1)]...)
	if hasWord(edge) || hasWord(text) {
		c.hidden = true
		return
	}
	if len(text) >= len(word)-1 {
		c.carry = append(c.carry[:0], text[len(text)-(len(word)-1):]...)
	} else {
		c.carry = append(c.carry, text...)
		c.carry = c.carry[max(0, len(c.carry)-(len(word)-1)):]
	}
}

// word is what a cut-out middle must not hold for the end to be kept.
const word = "private"

// hasWord reports whether b holds word in any case.
func hasWord(b []byte) bool {
	const v = 3 // where v is in word
	lower, upper := -2, -2
	for i := v; i < len(b); {
		lower, upper = nextFrom(b, i, 'v', lower), nextFrom(b, i, 'V', upper)
		j := lower
		if j < 0 || upper >= 0 && upper < j {
			j = upper
		}
		if j < 0 {
			return false
		}
		if j >= v && j-v+len(word) <= len(b) && bytes.EqualFold(b[j-v:j-v+len(word)], []byte(word)) {
			return true
		}
		i = j + 1
	}
	return false
}

// nextFrom returns the index of the first c in p at or after from, given
// the previous answer (-2 for none yet), which stands while it is not
// behind from; -1 when there is none.
func nextFrom(p []byte, from int, c byte, prev int) int {
	if prev == -1 || prev >= from {
		return prev
	}
	if i := bytes.IndexByte(p[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// finish ends a string that was cut: the mark, then its end.
func (c *condenser) finish() {
	if !c.cutting {
		return
	}
	t := c.tail
	if len(t) > tailKeep+tailContext {
		c.scanPrivate(t[:len(t)-tailKeep-tailContext])
		t = t[len(t)-tailKeep-tailContext:]
	}
	start := safeStart(t, tailContext)
	c.scanPrivate(t[:start])
	c.out.WriteString(cutMark)
	if !c.hidden && start < len(t) {
		c.out.Write(t[start:])
	}
}

// safeEnd returns the largest end at most max of a cut of JSON string
// content s that splits no escape and no UTF-8 character (0 at worst).
func safeEnd(s []byte, limit int) int {
	for i := min(limit, len(s)); i > 0; i-- {
		if escapeFree(s[max(0, i-5):i]) && (i == len(s) || utf8.RuneStart(s[i])) {
			return i
		}
	}
	return 0
}

// safeStart returns the first start at or after from of a cut of JSON
// string content s (from bytes of context before it) that splits no escape
// and no UTF-8 character; len(s) when there is none.
func safeStart(s []byte, from int) int {
	for i := from; i < len(s); i++ {
		if escapeFree(s[i-5:i]) && utf8.RuneStart(s[i]) {
			return i
		}
	}
	return len(s)
}

// escapeFree reports whether b holds no backslash: a cut right after it is
// inside no escape (the longest, \uXXXX, is 6 bytes).
func escapeFree(b []byte) bool { return bytes.IndexByte(b, '\\') < 0 }
