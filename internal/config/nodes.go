package config

import (
	"net/url"
	"strings"

	"github.com/memhq/mem/internal/memory"
)

// NodeURLs checks a comma-separated list of node addresses: http or https,
// a host, no path beyond /, no user or password in the address.
func NodeURLs(list string) ([]string, error) {
	var out []string
	for _, raw := range strings.Split(list, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		// What the message quotes: never a password.
		shown := raw
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			shown = "…@" + raw[i+1:]
		}
		if err == nil && u.User != nil {
			shown = u.Redacted()
		}
		bad := func(why string) error {
			return memory.Invalid("url", "http:// or https:// node addresses separated by commas ("+why+")", shown)
		}
		switch {
		case !strings.Contains(raw, "://"):
			return nil, bad("no scheme: write http://" + strings.TrimPrefix(shown, "…@"))
		case err != nil:
			return nil, bad("not an address")
		case u.Scheme != "http" && u.Scheme != "https":
			return nil, bad("scheme " + u.Scheme)
		case u.Host == "":
			return nil, bad("no host")
		case u.User != nil:
			return nil, bad("user and password go in --user and --password-stdin, never in the address")
		case u.Path != "" && u.Path != "/", u.RawQuery != "", u.Fragment != "":
			return nil, bad("no path or query")
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	if len(out) == 0 {
		return nil, memory.Invalid("url", "one or more http:// or https:// node addresses separated by commas", list)
	}
	return out, nil
}
