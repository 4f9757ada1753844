// Package interchange reads and writes mem's JSON Lines interchange format:
// one record per line, each with a "kind" (session, observation, summary,
// prompt), field names as in the data model, times in RFC 3339.
package interchange

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
)

// MaxLine is the longest line Decode accepts.
const MaxLine = 16 << 20

// Encoder writes records, one per line.
type Encoder struct {
	w   *bufio.Writer
	buf bytes.Buffer
}

// NewEncoder returns an Encoder writing to w; call Flush at the end.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: bufio.NewWriter(w)} }

// Encode writes one record.
func (e *Encoder) Encode(r memory.Record) error {
	var v any
	switch r.Kind {
	case memory.KindSession:
		v = struct {
			Kind string `json:"kind"`
			*memory.Session
		}{r.Kind, r.Session}
	case memory.KindObservation:
		v = struct {
			Kind string `json:"kind"`
			*memory.Observation
		}{r.Kind, r.Observation}
	case memory.KindSummary:
		v = struct {
			Kind string `json:"kind"`
			*memory.Summary
		}{r.Kind, r.Summary}
	case memory.KindPrompt:
		v = struct {
			Kind string `json:"kind"`
			*memory.Prompt
		}{r.Kind, r.Prompt}
	default:
		return fmt.Errorf("encoding record: unknown kind %q", r.Kind)
	}
	e.buf.Reset()
	enc := json.NewEncoder(&e.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encoding %s record: %w", r.Kind, err)
	}
	_, err := e.w.Write(e.buf.Bytes())
	return err
}

// Flush writes out buffered records.
func (e *Encoder) Flush() error { return e.w.Flush() }

// Decode reads every record of r and validates each one. The first bad line
// stops it with a *memory.LineError naming the line; blank lines are skipped.
// Lines are decoded in parallel (JSON decoding is most of an import's work
// outside SQLite), and the error reported is still that of the first bad line.
func Decode(r io.Reader) ([]memory.Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	var lines []numbered
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		lines = append(lines, numbered{line, bytes.Clone(b)})
	}
	out, err := decodeLines(lines)
	if err != nil {
		return nil, err
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &memory.LineError{Line: line + 1, Err: memory.Invalid("line", "at most 16 MiB", "")}
		}
		return nil, fmt.Errorf("reading records: %w", err)
	}
	return out, nil
}

// numbered is one non-blank line and its number in the file.
type numbered struct {
	n int
	b []byte
}

// decodeLines decodes lines in contiguous chunks, one per CPU, and returns
// the error of the first bad line.
func decodeLines(lines []numbered) ([]memory.Record, error) {
	out := make([]memory.Record, len(lines))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(lines)/256))
	chunk := (len(lines) + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w * chunk; i < min((w+1)*chunk, len(lines)); i++ {
				rec, err := DecodeLine(lines[i].b)
				if err != nil {
					errs[w] = &memory.LineError{Line: lines[i].n, Err: err}
					return
				}
				rec.Line = lines[i].n
				out[i] = rec
			}
		}()
	}
	wg.Wait()
	for _, err := range errs { // chunks are in file order
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DecodeLine parses and validates one record. Every text a user or an agent
// wrote passes the privacy filter, as it does when first recorded: a file
// from elsewhere (or edited by hand) may hold what mem itself never stores.
// The filter changes nothing in text that already passed it, so an export
// imports unchanged.
func DecodeLine(b []byte) (memory.Record, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return memory.Record{}, memory.Invalid("json", "one JSON object per line", jsonProblem(err))
	}
	rec := memory.Record{Kind: head.Kind}
	var err error
	switch head.Kind {
	case memory.KindSession:
		rec.Session = &memory.Session{}
		if err = unmarshal(b, rec.Session); err == nil {
			err = checkSession(rec.Session)
		}
	case memory.KindObservation:
		rec.Observation = &memory.Observation{}
		if err = unmarshal(b, rec.Observation); err == nil {
			err = checkObservation(rec.Observation)
		}
	case memory.KindSummary:
		rec.Summary = &memory.Summary{}
		if err = unmarshal(b, rec.Summary); err == nil {
			err = checkSummary(rec.Summary)
		}
	case memory.KindPrompt:
		rec.Prompt = &memory.Prompt{}
		if err = unmarshal(b, rec.Prompt); err == nil {
			err = checkPrompt(rec.Prompt)
		}
	default:
		err = memory.Invalid("kind", "session, observation, summary or prompt", head.Kind)
	}
	return rec, err
}

func unmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return memory.Invalid(te.Field, "a JSON "+jsonKind(te.Type.Kind().String()), te.Value)
		}
		return memory.Invalid("json", "a valid record", jsonProblem(err))
	}
	return nil
}

func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "float"):
		return "number"
	case k == "slice":
		return "array"
	case k == "struct":
		return "string in RFC 3339 form"
	}
	return k
}

func jsonProblem(err error) string {
	s := err.Error()
	return strings.TrimPrefix(s, "json: ")
}

func checkSession(s *memory.Session) error {
	s.ID, s.ParentID = privacy.FilterID(s.ID), privacy.FilterID(s.ParentID)
	s.Cwd, s.AgentType = privacy.Filter(s.Cwd), privacy.Filter(s.AgentType)
	if err := memory.ValidateSessionID("id", s.ID); err != nil {
		return err
	}
	if err := memory.ValidateKey("project", "project key", s.Project); err != nil {
		return err
	}
	if s.StartedAt.IsZero() {
		return memory.Invalid("started_at", "an RFC 3339 time", "")
	}
	if s.LastActivityAt.IsZero() {
		s.LastActivityAt = s.StartedAt
	}
	s.LastMessage = privacy.Filter(s.LastMessage)
	s.FilesRead = privacy.FilterAll(s.FilesRead)
	switch s.Status {
	case "", memory.StatusActive, memory.StatusEnded:
	default:
		return memory.Invalid("status", "active or ended", s.Status)
	}
	return nil
}

func checkObservation(o *memory.Observation) error {
	if err := memory.ValidateKey("uuid", "uuid", o.UUID); err != nil {
		return err
	}
	if o.CreatedAt.IsZero() {
		return memory.Invalid("created_at", "an RFC 3339 time", "")
	}
	// The content hash is recomputed on import; a stale one must not block it.
	o.ContentHash = ""
	o.SessionID = privacy.FilterID(o.SessionID)
	c, err := privacy.CleanObservation(*o)
	*o = c
	return err
}

func checkSummary(s *memory.Summary) error {
	if err := memory.ValidateKey("uuid", "uuid", s.UUID); err != nil {
		return err
	}
	s.SessionID = privacy.FilterID(s.SessionID)
	if err := memory.ValidateSessionID("session_id", s.SessionID); err != nil {
		return err
	}
	if s.CreatedAt.IsZero() {
		return memory.Invalid("created_at", "an RFC 3339 time", "")
	}
	for _, f := range []*string{&s.Request, &s.Investigated, &s.Learned, &s.Completed, &s.NextSteps, &s.Decisions, &s.Text} {
		*f = privacy.Filter(*f)
	}
	s.Concepts = privacy.FilterAll(s.Concepts)
	s.Files = privacy.FilterAll(s.Files)
	return nil
}

func checkPrompt(p *memory.Prompt) error {
	if err := memory.ValidateKey("uuid", "uuid", p.UUID); err != nil {
		return err
	}
	p.SessionID = privacy.FilterID(p.SessionID)
	if err := memory.ValidateSessionID("session_id", p.SessionID); err != nil {
		return err
	}
	if p.PromptNumber < 1 {
		return memory.Invalid("prompt_number", "a number >= 1", fmt.Sprint(p.PromptNumber))
	}
	if p.CreatedAt.IsZero() {
		return memory.Invalid("created_at", "an RFC 3339 time", "")
	}
	text := p.Text
	if p.Text = privacy.Filter(p.Text); !privacy.IsEmpty(text) && privacy.IsEmpty(p.Text) {
		return memory.Invalid("text", "text that is not entirely private", "")
	}
	return nil
}
