package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxRequestBytes bounds one request line of the stdio transport.
// save_observation's subtitle and narrative are at most 64 KiB each, under
// 1 MiB together even with every byte escaped as \u00XX.
const MaxRequestBytes = 1 << 20

// StdioTransport serves MCP over newline-delimited JSON on in and out, like
// the SDK's IOTransport, but a bad line never ends the session: the SDK
// closes the connection on the first line it cannot decode, and the agent
// loses its memory tools. Each line is checked here first. A line longer
// than max bytes (MaxRequestBytes when max <= 0) is answered with an
// invalid-request error carrying its id when one can be found; a line that
// is not JSON with a parse error (id null); a batch, or JSON that is not a
// JSON-RPC message, with an invalid-request error. Only well-formed single
// messages reach the SDK. Reading stops at the end of in.
func StdioTransport(in io.Reader, out io.Writer, max int) mcp.Transport {
	if max <= 0 {
		max = MaxRequestBytes
	}
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(filterLines(in, pw, w, max))
	}()
	return &mcp.IOTransport{Reader: pr, Writer: w}
}

// lockedWriter keeps the SDK's replies and the guard's errors whole lines:
// each writes one message in one Write call.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// filterLines copies the well-formed messages of in to sdk, one per line,
// and answers the others on out. It returns nil at the end of in.
func filterLines(in io.Reader, sdk io.Writer, out io.Writer, max int) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, id, tooLong, err := readLine(r, max)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if reply := check(line, id, tooLong, max); reply != nil {
				if _, werr := out.Write(reply); werr != nil {
					return werr
				}
			} else if _, werr := sdk.Write(append(bytes.TrimSpace(line), '\n')); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line of at most max bytes. A longer line is read to
// its end without being kept: tooLong is set and id is its top-level "id"
// member, found as the bytes stream past.
func readLine(r *bufio.Reader, max int) (line []byte, id json.RawMessage, tooLong bool, err error) {
	var ids idFinder
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) <= max+1 { // +1: the newline
				line = append(line, chunk...)
			} else {
				tooLong = true
				ids.write(line)
				line = nil
			}
		}
		if tooLong {
			ids.write(chunk)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			id = ids.result()
		}
		return line, id, tooLong, err
	}
}

// check returns the error reply for a line the SDK must not see, or nil.
func check(line []byte, id json.RawMessage, tooLong bool, max int) []byte {
	switch {
	case tooLong:
		return errorReply(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: larger than %d bytes", max))
	case !json.Valid(line):
		return errorReply(nil, jsonrpc.CodeParseError, "parse error: not JSON")
	}
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		return errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return errorReply(memberID(line), jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message")
	}
	return nil
}

// memberID returns the "id" of a JSON object when it is a number or a
// string, else nil.
func memberID(obj []byte) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return nil
	}
	return validID(m["id"])
}

func validID(id json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return id
	}
	return nil
}

// errorReply is a JSON-RPC error response line; a nil id is null.
func errorReply(id json.RawMessage, code int64, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	return append(b, '\n')
}

// idFinder finds the top-level "id" member of a JSON object written to it
// in pieces, keeping only the member's key and value (a few bytes), so the
// id of a request too large to keep can still be answered.
type idFinder struct {
	depth     int
	inString  bool
	escape    bool
	expectKey bool   // at depth 1, the next string is a key
	inKey     bool   // reading a depth-1 key
	key       []byte // the depth-1 key being read, or the last one read
	inID      bool   // reading the value of "id"
	val       []byte
	id        json.RawMessage
}

const maxIDBytes = 128

func (f *idFinder) write(p []byte) {
	for _, c := range p {
		f.step(c)
	}
}

func (f *idFinder) keep(c byte) {
	switch {
	case f.inKey && len(f.key) < 8:
		f.key = append(f.key, c)
	case f.inID && len(f.val) < maxIDBytes:
		f.val = append(f.val, c)
	}
}

func (f *idFinder) step(c byte) {
	if f.inString {
		f.keep(c)
		switch {
		case f.escape:
			f.escape = false
		case c == '\\':
			f.escape = true
		case c == '"':
			f.inString = false
			f.inKey = false
			if f.inID {
				f.endID()
			}
		}
		return
	}
	switch c {
	case '"':
		f.inString = true
		f.inKey = f.depth == 1 && f.expectKey
		if f.inKey {
			f.key = f.key[:0]
		}
		f.keep(c)
	case '{', '[':
		f.inID = false // an object or array is no id
		f.depth++
		f.expectKey = f.depth == 1 && c == '{'
	case '}', ']', ',':
		if f.inID {
			f.endID()
		}
		if c != ',' {
			f.depth--
		}
		f.expectKey = f.depth == 1 && c == ','
	case ':':
		if f.depth == 1 {
			f.expectKey = false
			f.inID = string(f.key) == `"id"` && f.id == nil
			f.val = f.val[:0]
		}
	case ' ', '\t', '\r', '\n':
		if f.inID && len(f.val) > 0 {
			f.endID()
		}
	default:
		f.keep(c)
	}
}

func (f *idFinder) endID() {
	f.inID = false
	f.id = validID(append(json.RawMessage(nil), f.val...))
}

func (f *idFinder) result() json.RawMessage { return f.id }
