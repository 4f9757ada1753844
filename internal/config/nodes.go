package config

import (
	"net/url"
	"strings"

	"github.com/memhq/mem/internal/memory"
)

// HideURLUsers returns a comma-separated list of addresses with whatever
// comes before an @ in each address's host part (a user, a password, a
// token) replaced by xxxxx, whether or not the address parses: such an
// address is refused (NodeURLs), and shown only this way.
func HideURLUsers(list string) string {
	items := strings.Split(list, ",")
	for i, it := range items {
		at := strings.LastIndex(it, "@")
		if at < 0 {
			continue
		}
		from := 0
		if j := strings.Index(it, "://"); j >= 0 && j < at {
			from = j + len("://")
		}
		items[i] = it[:from] + "xxxxx" + it[at:]
	}
	return strings.Join(items, ",")
}

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
		shown := HideURLUsers(raw) // what the message quotes: never a password
		bad := func(why string) error {
			return memory.Invalid("url", "http:// or https:// node addresses separated by commas ("+why+")", shown)
		}
		switch {
		case !strings.Contains(raw, "://"):
			return nil, bad("no scheme: write http://" + shown[strings.LastIndex(shown, "@")+1:])
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
