package privacy

import (
	"strings"
	"testing"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/termsafe"
)

func TestFilter(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "run the tests", "run the tests"},
		{"private part", "Use staging. <private>pw is hunter2</private> Then migrate.", "Use staging. Then migrate."},
		{"any case", "a <PRIVATE>x</Private> b", "a b"},
		{"two parts", "<private>a</private>keep<private>b</private>", "keep"},
		{"unclosed hides the rest", "keep this <private>and not this", "keep this"},
		{"entirely private", "<private>all of it</private>", ""},
		{"indentation kept", "func f() {\n\treturn 1\n}", "func f() {\n\treturn 1\n}"},
		{"github token", "token ghp_16C7e42F292c6912E7710c838347Ae178B4a here", "token [REDACTED] here"},
		{"openai key", "key sk-proj-abcdefghijklmnopqrstuvwxyz0123", "key [REDACTED]"},
		{"anthropic key", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "[REDACTED]"},
		{"aws key", "AKIAIOSFODNN7EXAMPLE", "[REDACTED]"},
		{"slack", "xoxb-123456789012-abcdefghij", "[REDACTED]"},
		{"stripe", "sk_live_abcdefghijklmnop1234", "[REDACTED]"},
		{"password assignment", "password=hunter2 next", "password=[REDACTED] next"},
		{"quoted api key", `api_key: "abc def"`, `api_key: [REDACTED]`},
		{"bearer", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345", "Authorization: Bearer [REDACTED]"},
		{"private key block", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "[REDACTED]"},
		{"not a secret", "maxRetries := cfg.Refund.MaxRetries", "maxRetries := cfg.Refund.MaxRetries"},
		{"token-named prose", "mergeToken: context deadline exceeded", "mergeToken: context deadline exceeded"},
		{"token from a call", "token = next()", "token = next()"},
		{"bare token value", "auth_token=9f86d081884c7d65", "auth_token=[REDACTED]"},
		{"short password", "pwd: abc", "pwd: [REDACTED]"},
		{"password behind a token name", "login token: password=swordfish rejected", "login token: password=[REDACTED] rejected"},
		{"password behind a secret name", "secret: passwd=swordfish", "secret: [REDACTED]"},
		{"bearer token with dots", "sending Bearer abcdefghij.klmnopqrst.uvwxyz0123", "sending Bearer [REDACTED]"},
		{"passphrase secret", "client_secret=correct-horse-battery-staple", "client_secret=[REDACTED]"},
		{"pass at the end of a name", "export DB_PASS=plainvalue", "export DB_PASS=[REDACTED]"},
		{"a pass that is not a password", "bypass: true, passes: 3", "bypass: true, passes: 3"},
		{"long s in the name", "pa\u017f\u017fword=hunter2", "pa\u017f\u017fword=[REDACTED]"},
		{"kelvin sign in the name", "api_\u212aey: swordfish", "api_\u212aey: [REDACTED]"},
		{"mysql -p", "mysql -uroot -pS3cretPw shop", "mysql -uroot -p[REDACTED] shop"},
		{"mysqldump -p quoted", `mysqldump -u b -p"Xy9#pass" -e 'select 1'`, `mysqldump -u b -p[REDACTED] -e 'select 1'`},
		{"mysql --password", "mysql --user=root --password=S3cretPw shop", "mysql --user=root --password=[REDACTED] shop"},
		{"mysql -p prompts", "mysql -u root -p shop", "mysql -u root -p shop"},
		{"mysql port is no password", "mysql -h db -P3306 -u root", "mysql -h db -P3306 -u root"},
		{"mysql after a pipe", "mysql -uroot shop | grep -price", "mysql -uroot shop | grep -price"},
		{"encryption key", "ENCRYPTION_KEY=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==", "ENCRYPTION_KEY=[REDACTED]"},
		{"laravel app key", "APP_KEY=base64:2fl+Ktvkfl+Fuz4Qp/A75G2RTiWVA/ZoKZvp6fiiM10=", "APP_KEY=[REDACTED]"},
		{"hugging face token", "token hf_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gH3j", "token [REDACTED]"},
		{"hugging face call kept", "path = hf_hub_download(repo_id, filename)", "path = hf_hub_download(repo_id, filename)"},
		{"primary key kept", "primary_key: id, sort_key: created_at", "primary_key: id, sort_key: created_at"},
		{"kelvin sign in the key block", "-----BEGIN RSA PRIVATE \u212aEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "[REDACTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Filter(tt.in); got != tt.want {
				t.Errorf("Filter(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFilterIsIdempotent(t *testing.T) {
	for _, in := range []string{
		"password=x <private>y</private> ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		"a <priv<private>x</private>ate>hidden</private> b",
	} {
		once := Filter(in)
		if twice := Filter(once); twice != once {
			t.Errorf("second pass changed %q to %q", once, twice)
		}
		if strings.Contains(once, "ghp_") || strings.Contains(once, "hidden") {
			t.Errorf("Filter(%q) = %q: a secret survived", in, once)
		}
	}
}

func TestHasPrivate(t *testing.T) {
	for in, want := range map[string]bool{
		"": false, "plain < text": false, "<privat": false, "a <private>b": true,
		"x <PRIVATE> y": true, "<<Private>": true, "</private>": false,
	} {
		if got := HasPrivate(in); got != want {
			t.Errorf("HasPrivate(%q) = %v, want %v", in, got, want)
		}
	}
}

// A cut never leaves a fragment of a secret that Redact would miss.
func TestCutsSplitNoSecret(t *testing.T) {
	const tok = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7\n", 60) + "-----END RSA PRIVATE KEY-----"
	tests := []struct {
		name, text, leak string
		n                int
	}{
		{"token", "see " + tok + " here", "16C7e", 10},
		{"token at the cut", "see " + tok, "16C7e", 4},
		{"bearer", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345", "abcdef", 30},
		{"quoted password", `password: "correct horse battery"`, "horse", 20},
		{"token inside an assignment", "api_key=" + tok + " rest", "16C7e", 30},
		{"private key", "key:\n" + pem + "\nafter", "ygWyF8", len(pem) / 2},
		{"no secret", "nothing to see here", "", 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := CutBefore(tt.text, tt.n)
			if k > tt.n {
				t.Fatalf("CutBefore moved the cut forward to %d", k)
			}
			if head := Redact(tt.text[:k]); tt.leak != "" && strings.Contains(head, tt.leak) {
				t.Errorf("head %q keeps %q", head, tt.leak)
			}
			k = CutAfter(tt.text, tt.n)
			if k < tt.n {
				t.Fatalf("CutAfter moved the cut back to %d", k)
			}
			if tail := Redact(tt.text[k:]); tt.leak != "" && strings.Contains(tail, tt.leak) {
				t.Errorf("tail %q keeps %q", tail, tt.leak)
			}
			if tt.leak == "" && (CutBefore(tt.text, tt.n) != tt.n || CutAfter(tt.text, tt.n) != tt.n) {
				t.Error("a cut that splits no secret moved")
			}
		})
	}
}

// privateNest builds a private part nested depth deep, with siblings parts
// at each level inside it; every word it holds but the tags ends in SECRET.
func privateNest(open, close string, depth, siblings int, sep string) string {
	inner := ""
	if depth > 1 {
		parts := make([]string, siblings)
		for i := range parts {
			parts[i] = privateNest(open, close, depth-1, siblings, sep)
		}
		inner = strings.Join(parts, sep+"midSECRET"+sep)
	}
	return open + "aSECRET" + sep + inner + sep + "zSECRET" + close
}

// Nested private parts hide everything up to the close tag that matches the
// outer opening, whatever the case of the tags, the depth, the siblings and
// the spacing; an outer part left open hides the rest.
func TestNestedPrivate(t *testing.T) {
	cases := 0
	for _, tags := range [][2]string{{"<private>", "</private>"}, {"<PRIVATE>", "</PRIVATE>"}, {"<Private>", "</pRiVaTe>"}} {
		for depth := 1; depth <= 4; depth++ {
			for siblings := 1; siblings <= 2; siblings++ {
				for _, sep := range []string{" ", "", "\n"} {
					for _, closed := range []bool{true, false} {
						part := privateNest(tags[0], tags[1], depth, siblings, sep)
						if !closed {
							part = strings.TrimSuffix(part, tags[1])
						}
						in := "keepA " + part + " keepB"
						out := Filter(in)
						cases++
						if strings.Contains(out, "SECRET") || strings.Contains(strings.ToLower(out), "private>") {
							t.Errorf("Filter(%q) = %q: a private part leaked", in, out)
						}
						if !strings.Contains(out, "keepA") || closed != strings.Contains(out, "keepB") {
							t.Errorf("Filter(%q) = %q: want keepA kept and keepB kept only when the outer part closes", in, out)
						}
					}
				}
			}
		}
	}
	if cases < 90 {
		t.Fatalf("only %d variants", cases)
	}
}

func TestSessionKey(t *testing.T) {
	const tok = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	for _, id := range []string{"sess-1", "0c5b6a1e-2f3d-4d0a-9a55-1f0e5b8a7c21", "abc:agent-7", " spaced ", ""} {
		if got := SessionKey(id); got != id {
			t.Errorf("SessionKey(%q) = %q, want it unchanged", id, got)
		}
	}
	for _, id := range []string{"s-" + tok, "a<private>x</private>", tok + ":sub", "s-" + tok + "\x1b[31m", strings.Repeat("x", 300) + "-" + tok} {
		got := SessionKey(id)
		if strings.Contains(got, "16C7e") || strings.Contains(got, "private") || got == "" {
			t.Errorf("SessionKey(%q) = %q: the secret is kept", id, got)
		}
		if again := SessionKey(id); again != got {
			t.Errorf("SessionKey(%q) gave %q then %q", id, got, again)
		}
		if SessionKey(got) != got {
			t.Errorf("SessionKey(%q) changes its own output %q", id, got)
		}
	}
	if SessionKey("s-"+tok) == SessionKey("t-"+tok) {
		t.Error("two ids map to one")
	}
	if got, want := SessionKey("a\x1bb\nc"), `a\x1bb\nc`; got != want {
		t.Errorf("SessionKey keeps control characters: %q, want %q", got, want)
	}
}

// sessionIDs are ids an editor, a user or an agent may give: plain, with
// white space, control characters, invalid UTF-8, secrets, private parts,
// at and over the length limit.
func sessionIDs() []string {
	const tok = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	return []string{
		"", " ", "\t\n", "sess-1", "0c5b6a1e-2f3d-4d0a-9a55-1f0e5b8a7c21", "abc:agent-7", "ses_01JAXYZ",
		" lead", "trail ", "tab\tin", "nl\n", "\nlead", "esc\x1b[31mred", "nul\x00", "bidi\u202eevil", "ls\u2028x",
		"bad\xffutf8", "ünïcode-ID", "redacted-0123456789abcdef01234567", `back\slash`, `lit\x1b`,
		strings.Repeat("a", 200), strings.Repeat("a", 201), strings.Repeat("é", 100), strings.Repeat("é", 101),
		strings.Repeat("a", 190) + "\x1b", strings.Repeat("a", 197) + "\x1b", strings.Repeat("\x1b", 50),
		"s-" + tok, tok + ":sub", "a<private>x</private>", "<private>all", "password=hunter2secret",
		"s-" + tok + "\x1b[31m", "s-" + tok + "\n", " s-" + tok + " ",
		strings.Repeat("x", 300) + "-" + tok, tok + "-" + strings.Repeat("y", 300),
		strings.Repeat("\x1b", 80) + "-" + tok, strings.Repeat("z", 250), strings.Repeat("z", 250) + "\x1b",
	}
}

// The hooks stored a session under termsafe.Line(filter(id)) when that
// passed memory.ValidateSessionID: SessionID gives every id they accepted
// the same key, and refuses every id they refused.
func TestSessionIDAsHooksStoredIt(t *testing.T) {
	hooks := func(id string) (string, bool) {
		key := termsafe.Line(filterID(id))
		return key, memory.ValidateSessionID("session_id", key) == nil
	}
	accepted := 0
	for _, id := range sessionIDs() {
		want, ok := hooks(id)
		got, err := SessionID("session_id", id)
		switch {
		case ok && err != nil:
			t.Errorf("SessionID(%q) refuses an id the hooks stored as %q: %v", id, want, err)
		case ok && got != want:
			t.Errorf("SessionID(%q) = %q, the hooks stored it as %q", id, got, want)
		case !ok && err == nil:
			t.Errorf("SessionID(%q) = %q, the hooks refused it", id, got)
		case ok:
			accepted++
		}
	}
	if accepted < 25 {
		t.Errorf("only %d of the ids are accepted: the table tests too little", accepted)
	}
}

// No message of a refused id quotes a secret or a private part the id
// holds.
func TestSessionIDErrorsHoldNoSecret(t *testing.T) {
	refused := 0
	for _, id := range sessionIDs() {
		key, err := SessionID("--session", id)
		if err == nil {
			if key != SessionKey(id) || termsafe.HasControl(key) || len(key) > memory.MaxSessionIDLen {
				t.Errorf("SessionID(%q) = %q", id, key)
			}
			continue
		}
		refused++
		if !memory.IsInvalid(err) || !strings.HasPrefix(err.Error(), "--session: ") {
			t.Errorf("SessionID(%q): %v, want a validation error naming --session", id, err)
		}
		msg := err.Error()
		for _, leak := range []string{"16C7e", "ghp_", "hunter2", "private"} {
			if strings.Contains(msg, leak) {
				t.Errorf("SessionID(%q): the message holds %q: %s", id, leak, msg)
			}
		}
	}
	if refused < 5 {
		t.Errorf("only %d of the ids are refused: the table tests too little", refused)
	}
}
