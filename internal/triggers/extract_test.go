package triggers

import (
	"slices"
	"strings"
	"testing"
)

func keys(ts []Trigger) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Key())
	}
	return strings.Join(out, " | ")
}

// Real prompts, as users type them to coding agents.
func TestExtract(t *testing.T) {
	cases := []struct {
		prompt string
		want   string
	}{
		{"How does the OrderService handle refunds? Look at internal/orders/refund.go and keep the retry_policy we agreed on.",
			"question:OrderService refunds | path:internal/orders/refund.go | symbol:OrderService | symbol:retry_policy"},
		{"What did we decide about the cache TTL for product listings?",
			"question:cache TTL product listings"},
		{"now add validation", ""},
		{"Why did we switch the payments client to idempotency keys?",
			"question:switch payments client idempotency keys"},
		// What the hook sees of a prompt with a private part (privacy.Filter ran first).
		{"Use the staging database.  Then run the migration.", ""},
		{"fix the failing test in store_test.go, TestObservationDedupAndFTS fails with SQLITE_BUSY",
			"path:store_test.go | symbol:TestObservationDedupAndFTS | symbol:SQLITE_BUSY"},
		{"why is parseDSN() returning an empty path when MEM_DB is set?",
			"question:parseDSN returning empty path MEM_DB set | symbol:parseDSN | symbol:MEM_DB"},
		{"Can you refactor the HTTPServer so it uses cfg.Refund.MaxRetries instead of the hard-coded 3?",
			"symbol:HTTPServer | symbol:MaxRetries"},
		{"Update the README and the GitHub workflow; we moved from JavaScript to TypeScript.", ""},
		{"see https://example.com/docs/api/v2 and/or the notes in ./docs/design.md",
			"path:docs/design.md"},
		{"what is the `pending_context` table for", "question:pending_context table | symbol:pending_context"},
		{"Please run go test ./... and tell me what breaks", ""},
		{"explain how useEffect cleanup works in src/components/OrderList.tsx",
			"question:useEffect cleanup src/components/OrderList.tsx | path:src/components/OrderList.tsx | symbol:useEffect"},
		{"The Refund method should log. Refund is called from checkout.", ""},
		{"rename user_id to customer_id everywhere (also in migrations/00002_customers.sql)",
			"path:migrations/00002_customers.sql | symbol:user_id | symbol:customer_id"},
		{"where is the config file loaded?", "question:config loaded"},
		// Any sentence ending in a question mark asks about something,
		// unless it asks the agent to do something.
		{"Would Caroline pursue writing as a career?", "question:Caroline pursue writing career"},
		{"Fine. Which database did we pick for the queue? Then go on.", "question:database pick queue"},
		{"could you make the build faster?", ""},
		// Slash commands are commands to the agent, not files.
		{"/help", ""},
		{"/review the last commit", ""},
		{"look at /etc/hosts and /tmp/", "path:/etc/hosts | path:/tmp"},
	}
	for _, tc := range cases {
		if got := keys(Extract(tc.prompt)); got != tc.want {
			t.Errorf("Extract(%q)\n got %s\nwant %s", tc.prompt, got, tc.want)
		}
	}
}

func TestExtractBounded(t *testing.T) {
	p := strings.Repeat("FooBar BazQux alpha_beta ", 50) + strings.Repeat("x", 1<<20)
	for i := 0; i < 20; i++ {
		p += " Sym" + string(rune('A'+i)) + "Thing"
	}
	if n := len(Extract(p)); n > MaxTriggers {
		t.Fatalf("%d triggers, want at most %d", n, MaxTriggers)
	}
}

func TestKeyRoundTrip(t *testing.T) {
	for _, tr := range []Trigger{{KindSymbol, "OrderService"}, {KindPath, "a/b:c.go"}, {KindQuestion, "what: x"}} {
		got, ok := ParseKey(tr.Key())
		if !ok || got != tr {
			t.Errorf("ParseKey(%q) = %v %v", tr.Key(), got, ok)
		}
	}
	if _, ok := ParseKey("bogus:x"); ok {
		t.Error("bogus kind accepted")
	}
}

// A trigger's terms split identifiers in any script and leave noise words
// out; each term is a prefix of its word, so Relevance finds it in the text.
func TestQueryTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"OrderService refunds", []string{"order", "servic", "refund"}},
		{"größeÄndern", []string{"größ", "ändern"}},
		{"how does the retry policy work", []string{"retr", "polic"}},
	} {
		if got := queryTerms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("queryTerms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
