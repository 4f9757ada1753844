package text

import (
	"strings"

	"github.com/memhq/mem/internal/lazy"
)

// stopwords are English function words and question words: they say how a
// question is asked, not what it is about, and they are in most rows.
var stopwords = &lazy.Value[map[string]bool]{New: func() map[string]bool {
	return set(`
a about above after again against all am an and any are aren as at be because been before
being below between both but by can cannot could couldn did didn do does doesn doing don down
during each few for from further had hadn has hasn have haven having he her here hers herself him
himself his how i if in into is isn it its itself just let ll me more most mustn my myself no nor
not of off on once only or other ought our ours ourselves out over own re same shan she should
shouldn so some such than that the their theirs them themselves then there these they this those
through to too under until up ve very was wasn we were weren what when where which while who whom
why will with won would wouldn you your yours yourself yourselves s t d m o y
also ever many much really something
`)
}}

// requestWords are the words of a request to a coding agent that say what
// to do, not what about: "please make the file handling work" is about
// handling, not about making, files or working. Every prompt has some, so
// as a keyword or a trigger they would match everything.
var requestWords = &lazy.Value[map[string]bool]{New: func() map[string]bool {
	return set(`
please make use using used uses get got need want like lets now one done still exactly actually us
work works working handle handles handl mean means happen happens file files
`)
}}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// IsStopword reports whether w (lower case) carries no topic. Search drops
// these words from a query.
func IsStopword(w string) bool { return stopwords.Get()[w] }

// IsNoise reports whether w (lower case) is a stop word or a request word
// (please, make, use, work, handle, file...). Recall's keywords and the
// prompt's triggers, which come from what the user asks an agent, leave
// these out too; search does not, because a question may be about them.
func IsNoise(w string) bool { return stopwords.Get()[w] || requestWords.Get()[w] }
