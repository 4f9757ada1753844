package search

import (
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/lazy"
)

// Span is a stretch of time a query names: a day, a month or a year.
type Span struct {
	From, To time.Time // [From, To)
	// Precision is how specific the span is: 1 for a day, 0.5 for a
	// month, 0.25 for a year.
	Precision float64
}

// Contains reports whether t falls in the span.
func (s Span) Contains(t time.Time) bool { return !t.Before(s.From) && t.Before(s.To) }

// month returns the month a lower-case English name or abbreviation names
// ("march", "mar", "sept"), or 0.
func month(name string) time.Month {
	switch name {
	case "january", "jan":
		return time.January
	case "february", "feb":
		return time.February
	case "march", "mar":
		return time.March
	case "april", "apr":
		return time.April
	case "may":
		return time.May
	case "june", "jun":
		return time.June
	case "july", "jul":
		return time.July
	case "august", "aug":
		return time.August
	case "september", "sep", "sept":
		return time.September
	case "october", "oct":
		return time.October
	case "november", "nov":
		return time.November
	case "december", "dec":
		return time.December
	}
	return 0
}

const monthRe = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

var (
	isoDate   = lazy.NewRegexp(`\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b`)
	dayMonth  = lazy.NewRegexp(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRe + `\.?,?\s+(\d{4})\b`)
	monthDay  = lazy.NewRegexp(`(?i)\b` + monthRe + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	monthYear = lazy.NewRegexp(`(?i)\b` + monthRe + `\.?,?\s+(?:of\s+)?(\d{4})\b`)
	yearOnly  = lazy.NewRegexp(`\b(19\d\d|20\d\d)\b`)
)

// Dates finds the dates a query names (2023-10-13, 13 October 2023,
// October 13, 2023, October 2023, 2023), most specific first, each stretch
// of text read once. Impossible dates are ignored.
func Dates(text string) []Span {
	if len(text) > 4096 {
		text = text[:4096]
	}
	if !hasYear(text) {
		return nil // every form names a year: no regular expression is compiled
	}
	var out []Span
	used := make([]bool, len(text))
	take := func(loc []int) bool {
		for i := loc[0]; i < loc[1]; i++ {
			if used[i] {
				return false
			}
		}
		for i := loc[0]; i < loc[1]; i++ {
			used[i] = true
		}
		return true
	}
	day := func(y, m, d int) {
		if m < 1 || m > 12 || d < 1 || d > 31 {
			return
		}
		from := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if from.Day() != d {
			return
		}
		out = append(out, Span{From: from, To: from.AddDate(0, 0, 1), Precision: 1})
	}
	for _, loc := range isoDate.Get().FindAllStringSubmatchIndex(text, -1) {
		if take(loc) {
			day(atoi(text[loc[2]:loc[3]]), atoi(text[loc[4]:loc[5]]), atoi(text[loc[6]:loc[7]]))
		}
	}
	for _, loc := range dayMonth.Get().FindAllStringSubmatchIndex(text, -1) {
		if take(loc) {
			day(atoi(text[loc[6]:loc[7]]), int(month(strings.ToLower(text[loc[4]:loc[5]]))), atoi(text[loc[2]:loc[3]]))
		}
	}
	for _, loc := range monthDay.Get().FindAllStringSubmatchIndex(text, -1) {
		if take(loc) {
			day(atoi(text[loc[6]:loc[7]]), int(month(strings.ToLower(text[loc[2]:loc[3]]))), atoi(text[loc[4]:loc[5]]))
		}
	}
	for _, loc := range monthYear.Get().FindAllStringSubmatchIndex(text, -1) {
		if take(loc) {
			from := time.Date(atoi(text[loc[4]:loc[5]]), month(strings.ToLower(text[loc[2]:loc[3]])), 1, 0, 0, 0, 0, time.UTC)
			out = append(out, Span{From: from, To: from.AddDate(0, 1, 0), Precision: 0.5})
		}
	}
	for _, loc := range yearOnly.Get().FindAllStringSubmatchIndex(text, -1) {
		if take(loc) {
			from := time.Date(atoi(text[loc[2]:loc[3]]), 1, 1, 0, 0, 0, 0, time.UTC)
			out = append(out, Span{From: from, To: from.AddDate(1, 0, 0), Precision: 0.25})
		}
	}
	if len(out) > 8 {
		out = out[:8]
	}
	return out
}

// hasYear reports whether text has four ASCII digits in a row, which every
// form Dates reads has.
func hasYear(text string) bool {
	run := 0
	for i := 0; i < len(text); i++ {
		if text[i] >= '0' && text[i] <= '9' {
			if run++; run == 4 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// DateScore is how well t fits the spans: the precision of the best span
// that contains t, else that precision halved for every Window of distance.
func DateScore(t time.Time, spans []Span, window time.Duration) float64 {
	best := 0.0
	for _, s := range spans {
		v := 0.0
		switch {
		case s.Contains(t):
			v = s.Precision
		case window > 0:
			var d time.Duration
			if t.Before(s.From) {
				d = s.From.Sub(t)
			} else {
				d = t.Sub(s.To)
			}
			v = s.Precision * pow2(-float64(d)/float64(window))
		}
		if v > best {
			best = v
		}
	}
	return best
}
