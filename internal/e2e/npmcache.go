package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Fetches are the npm registry requests a CLI made through npm's cache in
// a HOME (OpenCode runs npm in its own process, with HOME/.npm as cache).
type Fetches struct {
	Packages []string // package documents: the packages npm resolved
	Tarballs []string // package files it downloaded
}

func (f Fetches) String() string {
	return fmt.Sprintf("%d package documents, %d tarballs", len(f.Packages), len(f.Tarballs))
}

const cacheKeyPrefix = "make-fetch-happen:request-cache:"

// registryFetches reads npm's cache index under home: one line per request,
// a hash, a tab and a JSON entry whose key names the URL. Entries that are
// not requests (content keys) are skipped; a missing cache is no fetch.
func registryFetches(home string) (Fetches, error) {
	var f Fetches
	seen := map[string]bool{}
	root := filepath.Join(home, ".npm", "_cacache", "index-v5")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == root {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		file, err := os.Open(p)
		if err != nil {
			return err
		}
		defer file.Close()
		sc := bufio.NewScanner(file)
		sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
		for sc.Scan() {
			_, body, ok := strings.Cut(sc.Text(), "\t")
			if !ok {
				continue
			}
			var e struct{ Key string }
			if json.Unmarshal([]byte(body), &e) != nil || !strings.HasPrefix(e.Key, cacheKeyPrefix) {
				continue
			}
			u, err := url.Parse(strings.TrimPrefix(e.Key, cacheKeyPrefix))
			if err != nil || seen[u.Path] {
				continue
			}
			seen[u.Path] = true
			name := strings.TrimPrefix(u.Path, "/")
			if strings.Contains(name, "/-/") {
				f.Tarballs = append(f.Tarballs, name)
			} else {
				f.Packages = append(f.Packages, name)
			}
		}
		return sc.Err()
	})
	sort.Strings(f.Packages)
	sort.Strings(f.Tarballs)
	if err != nil {
		return f, fmt.Errorf("reading npm's cache index in %s: %w", home, err)
	}
	return f, nil
}
