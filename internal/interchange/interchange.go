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

	"github.com/memhq/mem/internal/guard"
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
// It holds every record: an import streams with Reader instead.
func Decode(r io.Reader) ([]memory.Record, error) {
	rd := NewReader(r)
	defer rd.Close()
	var out []memory.Record
	for {
		batch, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, batch...)
	}
}

// Batches of lines handed to one decoding worker: at most batchLines lines
// or batchBytes bytes, whichever comes first.
const (
	batchLines = 256
	batchBytes = 1 << 20
)

// Reader decodes the records of a JSON Lines stream in batches, in file
// order, with the lines decoded in parallel (JSON decoding is most of an
// import's work outside SQLite) a bounded number of batches ahead of the
// caller: memory does not grow with the file. The first bad line ends the
// stream with a *memory.LineError naming it.
type Reader struct {
	out  chan chan decoded // batches in file order, each filled by a worker
	done chan struct{}
	once sync.Once
	err  error // what Next returned last when it failed; io.EOF at the end
}

type decoded struct {
	recs []memory.Record
	err  error
}

type decodeJob struct {
	lines []numbered
	res   chan decoded
}

// NewReader starts reading r. Close it when done, or when stopping early.
func NewReader(r io.Reader) *Reader {
	workers := runtime.GOMAXPROCS(0)
	rd := &Reader{out: make(chan chan decoded, 2*workers), done: make(chan struct{})}
	jobs := make(chan decodeJob, workers)
	for range workers {
		go func() {
			for j := range jobs {
				recs, err := decodeLines(j.lines)
				j.res <- decoded{recs, err}
			}
		}()
	}
	go rd.scan(r, jobs)
	return rd
}

// scan splits r into batches of lines and queues each for a worker, in
// order, until the end of r, a read error or Close.
func (rd *Reader) scan(r io.Reader, jobs chan<- decodeJob) {
	defer close(rd.out)
	defer close(jobs)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	var lines []numbered
	size, line := 0, 0
	send := func() bool {
		if len(lines) == 0 {
			return true
		}
		res := make(chan decoded, 1)
		select {
		case rd.out <- res:
		case <-rd.done:
			return false
		}
		select {
		case jobs <- decodeJob{lines, res}:
		case <-rd.done:
			return false
		}
		lines, size = nil, 0
		return true
	}
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		lines = append(lines, numbered{line, bytes.Clone(b)})
		size += len(b)
		if (len(lines) >= batchLines || size >= batchBytes) && !send() {
			return
		}
	}
	if !send() {
		return
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = &memory.LineError{Line: line + 1, Err: memory.Invalid("line", "at most 16 MiB", "")}
		} else {
			err = fmt.Errorf("reading records: %w", err)
		}
		res := make(chan decoded, 1)
		res <- decoded{err: err}
		select {
		case rd.out <- res:
		case <-rd.done:
		}
	}
}

// Next returns the next batch of records, in file order, or io.EOF after
// the last one. After an error it returns that error again.
func (rd *Reader) Next() ([]memory.Record, error) {
	if rd.err != nil {
		return nil, rd.err
	}
	res, ok := <-rd.out
	if !ok {
		rd.err = io.EOF
		return nil, io.EOF
	}
	d := <-res
	if d.err != nil {
		rd.err = d.err
		rd.Close()
		return nil, d.err
	}
	return d.recs, nil
}

// Close stops reading: the goroutines of the reader end once the batches in
// flight are decoded.
func (rd *Reader) Close() {
	rd.once.Do(func() { close(rd.done) })
}

// numbered is one non-blank line and its number in the file.
type numbered struct {
	n int
	b []byte
}

// decodeLines decodes a batch of lines and returns the error of the first
// bad one.
func decodeLines(lines []numbered) ([]memory.Record, error) {
	out := make([]memory.Record, len(lines))
	for i, l := range lines {
		rec, err := DecodeLine(l.b)
		if err != nil {
			return nil, &memory.LineError{Line: l.n, Err: err}
		}
		rec.Line = l.n
		out[i] = rec
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
		err = unmarshal(b, rec.Session)
	case memory.KindObservation:
		rec.Observation = &memory.Observation{}
		err = unmarshal(b, rec.Observation)
	case memory.KindSummary:
		rec.Summary = &memory.Summary{}
		err = unmarshal(b, rec.Summary)
	case memory.KindPrompt:
		rec.Prompt = &memory.Prompt{}
		err = unmarshal(b, rec.Prompt)
	}
	if err != nil {
		return rec, err
	}
	return rec, Check(&rec)
}

// Check validates a record and passes its text through the privacy filter,
// in place, as DecodeLine does with what it reads: what a file or a team
// brings, and what leaves for the team (text an older mem stored before the
// filter knew a kind of secret goes out filtered).
func Check(rec *memory.Record) error {
	switch {
	case rec.Kind == memory.KindSession && rec.Session != nil:
		return checkSession(rec.Session)
	case rec.Kind == memory.KindObservation && rec.Observation != nil:
		return checkObservation(rec.Observation)
	case rec.Kind == memory.KindSummary && rec.Summary != nil:
		return checkSummary(rec.Summary)
	case rec.Kind == memory.KindPrompt && rec.Prompt != nil:
		return checkPrompt(rec.Prompt)
	}
	return memory.Invalid("kind", "session, observation, summary or prompt", rec.Kind)
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
	id, err := privacy.GivenSessionID("id", s.ID)
	if err != nil {
		return err
	}
	s.ID, s.ParentID = id, privacy.SessionKey(s.ParentID)
	s.Cwd, s.AgentType = privacy.Filter(s.Cwd), privacy.Filter(s.AgentType)
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
	o.SessionID = privacy.SessionKey(o.SessionID)
	importedFrom(&o.Provenance)
	c, err := privacy.CleanObservation(*o)
	guard.ImportedObservation(&c)
	*o = c
	return err
}

func checkSummary(s *memory.Summary) error {
	if err := memory.ValidateKey("uuid", "uuid", s.UUID); err != nil {
		return err
	}
	id, err := privacy.GivenSessionID("session_id", s.SessionID)
	if err != nil {
		return err
	}
	s.SessionID = id
	if s.CreatedAt.IsZero() {
		return memory.Invalid("created_at", "an RFC 3339 time", "")
	}
	importedFrom(&s.Provenance)
	if err := memory.ValidateProvenance(s.Provenance); err != nil {
		return err
	}
	for _, f := range []*string{&s.Request, &s.Investigated, &s.Learned, &s.Completed, &s.NextSteps, &s.Decisions, &s.Text} {
		*f = privacy.Filter(*f)
	}
	s.Concepts = privacy.FilterAll(s.Concepts)
	s.Files = privacy.FilterAll(s.Files)
	guard.ImportedSummary(s)
	return nil
}

// importedFrom keeps the provenance a file gives, its texts filtered; a
// record without one (a file from before mem kept provenance, or written by
// hand) came from the import.
func importedFrom(p *memory.Provenance) {
	if p.Origin == "" {
		p.Origin = memory.OriginImport
	}
	p.Agent, p.Event, p.Member = privacy.Filter(p.Agent), privacy.Filter(p.Event), privacy.Filter(p.Member)
}

func checkPrompt(p *memory.Prompt) error {
	if err := memory.ValidateKey("uuid", "uuid", p.UUID); err != nil {
		return err
	}
	id, err := privacy.GivenSessionID("session_id", p.SessionID)
	if err != nil {
		return err
	}
	p.SessionID = id
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
