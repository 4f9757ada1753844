package privacy

import (
	"strings"
	"testing"
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
	in := "password=x <private>y</private> ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	once := Filter(in)
	if twice := Filter(once); twice != once {
		t.Errorf("second pass changed %q to %q", once, twice)
	}
	if strings.Contains(once, "ghp_") {
		t.Error("token survived")
	}
}
