package hook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/memhq/mem/internal/fsafe"
)

// markCompressCheck, followed by a byte offset, marks a session whose agent
// may have compacted its context after that offset of its transcript
// (agent.Event.CompactionUnsure).
const markCompressCheck = "compress-check:"

// transcriptSize is the size of the transcript at path, -1 when it cannot
// be read.
func transcriptSize(path string) int64 {
	f, err := fsafe.Open(path)
	if err != nil {
		return -1
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return -1
	}
	return fi.Size()
}

// noteCompaction notes, at a pre-compact event that may or may not compact,
// where the transcript ended when the event arrived. With no transcript to
// read there is nothing to note: no compaction will be seen, and no block
// given.
func (t *turn) noteCompaction(ctx context.Context) error {
	if t.ev.TranscriptSize < 0 {
		return nil
	}
	_, err := t.db.PutSessionMark(ctx, t.s.ID, markKind, markCompressCheck+strconv.FormatInt(t.ev.TranscriptSize, 10), t.at)
	return err
}

// settleCompaction reads, at the first event after a pre-compact event that
// may or may not compact, what the agent appended to its transcript since:
// when it compacted, the session is marked for the compaction block, once.
func (t *turn) settleCompaction(ctx context.Context) error {
	keys, err := t.db.TakeSessionMarksWithPrefix(ctx, t.s.ID, markKind, markCompressCheck)
	if err != nil || len(keys) == 0 {
		return err
	}
	from := int64(-1)
	for _, k := range keys {
		if n, err := strconv.ParseInt(strings.TrimPrefix(k, markCompressCheck), 10, 64); err == nil && (from < 0 || n < from) {
			from = n
		}
	}
	if from < 0 || !geminiCompressedSince(t.ev.Transcript, from) {
		return nil
	}
	_, err = t.db.PutSessionMark(ctx, t.s.ID, markKind, markCompacted, t.at)
	return err
}

// geminiAck is what Gemini CLI has the model say after the summary that
// replaces a compressed history.
const geminiAck = "Got it. Thanks for the additional context!"

// maxCompressRead bounds how much of a transcript settleCompaction reads:
// what one turn appended, a compressed history among it.
const maxCompressRead = 32 << 20

// geminiCompressedSince reports whether Gemini CLI's transcript (JSON Lines:
// a metadata line, then message records and {"$set": ...} updates) records
// a compression after byte offset from. A compression starts a new chat on
// the same file: the recording service sets the session id again, then the
// whole new history, which opens with the environment, the summary and the
// model's fixed acknowledgement; no other update writes that pair (masking
// tool output sets the messages alone). A transcript shorter than from was
// rewritten: nothing is known of it, and nothing is reported.
func geminiCompressedSince(path string, from int64) bool {
	if path == "" {
		return false
	}
	f, err := fsafe.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() < from {
		return false
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return false
	}
	r := bufio.NewReaderSize(io.LimitReader(f, maxCompressRead), 64<<10)
	sessionSet := false
	for {
		line, err := readLine(r)
		if len(line) > 0 {
			if sessionSet && bytes.Contains(line, []byte(geminiAck)) && historyAcknowledged(line) {
				return true
			}
			sessionSet = setsSessionID(line)
		}
		if err != nil {
			return false
		}
	}
}

// readLine reads one line, however long (within the reader's limit).
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		line = append(line, part...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSpace(line), err
		}
	}
}

// setsSessionID reports whether a transcript line is {"$set":{"sessionId":…}}.
func setsSessionID(line []byte) bool {
	if !bytes.HasPrefix(line, []byte(`{"$set"`)) || len(line) > 4096 {
		return false
	}
	var rec struct {
		Set map[string]json.RawMessage `json:"$set"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return false
	}
	_, ok := rec.Set["sessionId"]
	return ok
}

// historyAcknowledged reports whether a transcript line sets the messages
// to a history whose first few messages hold the model's acknowledgement
// of a summary, and in which no message kept holds a block of mem's (the
// one the session started with, on a prompt the compression kept): the
// model has it still, and a second would be the same memory twice.
func historyAcknowledged(line []byte) bool {
	if bytes.Contains(line, []byte("memory_context project=")) {
		return false
	}
	var rec struct {
		Set struct {
			Messages []struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		} `json:"$set"`
	}
	if !bytes.HasPrefix(line, []byte(`{"$set"`)) || json.Unmarshal(line, &rec) != nil {
		return false
	}
	for i, m := range rec.Set.Messages {
		if i >= 4 {
			break
		}
		if m.Type != "gemini" {
			continue
		}
		var parts []struct {
			Text string `json:"text"`
		}
		var s string
		if json.Unmarshal(m.Content, &parts) == nil && len(parts) == 1 {
			s = parts[0].Text
		} else if json.Unmarshal(m.Content, &s) != nil {
			continue
		}
		if strings.TrimSpace(s) == geminiAck {
			return true
		}
	}
	return false
}
