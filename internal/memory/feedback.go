package memory

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The channels through which memory reaches a session's model.
const (
	ChannelStart   = "start"   // the session-start block
	ChannelCompact = "compact" // the block given back after compaction
	ChannelPrompt  = "prompt"  // prompt-time context (memory triggers)
	ChannelFile    = "file"    // file-touch context (file activity)
)

// Verdicts a person gives an injected entry in the viewer.
const (
	VerdictUseful = "useful"
	VerdictWrong  = "wrong"
	VerdictNone   = "" // clears a verdict
)

// Injection is one entry that one channel put in front of a session's
// model: an observation (#12) or a summary (S3), with its token estimate.
type Injection struct {
	Project   string
	SessionID string
	Channel   string
	Ref       string
	Tokens    int
	At        time.Time
}

// ObservationRef is an observation's reference as the agent sees it: #12.
func ObservationRef(id int64) string { return "#" + strconv.FormatInt(id, 10) }

// SummaryRef is a summary's reference as the agent sees it: S3.
func SummaryRef(id int64) string { return "S" + strconv.FormatInt(id, 10) }

// ParseEntryRef reads an entry's reference (#12, 12, S3) as ObservationRef
// or SummaryRef give it; ok is false for anything else.
func ParseEntryRef(s string) (ref string, ok bool) {
	s = strings.TrimSpace(s)
	summary := false
	switch {
	case strings.HasPrefix(s, "#"):
		s = s[1:]
	case strings.HasPrefix(s, "S"), strings.HasPrefix(s, "s"):
		s, summary = s[1:], true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return "", false
	}
	if summary {
		return SummaryRef(n), true
	}
	return ObservationRef(n), true
}

// CheckVerdict refuses a verdict other than useful, wrong or none.
func CheckVerdict(v string) error {
	switch v {
	case VerdictUseful, VerdictWrong, VerdictNone:
		return nil
	}
	return Invalid("verdict", "useful, wrong or empty (no verdict)", v)
}

// FeedbackCounts is what became of the entries injected through one
// channel (or all of them): an injection was used when the agent fetched
// its entry at or after it, or a person marked the entry useful; it was
// helpful when used and not marked wrong, irrelevant when marked wrong.
type FeedbackCounts struct {
	Channel      string `json:"channel,omitempty" db:"channel"`
	Injected     int    `json:"injected" db:"injected"`
	Used         int    `json:"used" db:"used"`
	Helpful      int    `json:"helpful" db:"helpful"`
	Wrong        int    `json:"wrong" db:"wrong"`
	Tokens       int    `json:"tokens" db:"tokens"`
	UnusedTokens int    `json:"unused_tokens" db:"unused_tokens"`
}

// Add adds o's counts to c's.
func (c *FeedbackCounts) Add(o FeedbackCounts) {
	c.Injected += o.Injected
	c.Used += o.Used
	c.Helpful += o.Helpful
	c.Wrong += o.Wrong
	c.Tokens += o.Tokens
	c.UnusedTokens += o.UnusedTokens
}

// HelpfulRate is the share of injections that were helpful (0 when none).
func (c FeedbackCounts) HelpfulRate() float64 { return share(c.Helpful, c.Injected) }

// IrrelevantRate is the share of injections whose entry was marked wrong.
func (c FeedbackCounts) IrrelevantRate() float64 { return share(c.Wrong, c.Injected) }

// UnusedTokenRate is the share of injected tokens whose entry was never
// used after it was injected.
func (c FeedbackCounts) UnusedTokenRate() float64 { return share(c.UnusedTokens, c.Tokens) }

// String says it in one line: "3 of 12 injected entries used (25% helpful,
// 8% marked wrong), 1,800 of 2,400 tokens never used (75%)".
func (c FeedbackCounts) String() string {
	return fmt.Sprintf("%d of %d injected entries used (%.0f%% helpful, %.0f%% marked wrong), %d of %d tokens never used (%.0f%%)",
		c.Used, c.Injected, 100*c.HelpfulRate(), 100*c.IrrelevantRate(), c.UnusedTokens, c.Tokens, 100*c.UnusedTokenRate())
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// Feedback is what became of a project's injections since a time, in all
// and per channel.
type Feedback struct {
	Project  string           `json:"project,omitempty"`
	Since    time.Time        `json:"since"`
	Total    FeedbackCounts   `json:"total"`
	Channels []FeedbackCounts `json:"channels"`
}
