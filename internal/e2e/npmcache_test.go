package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestRegistryFetches(t *testing.T) {
	entry := func(key string) string {
		return "0123abcd\t{\"key\":\"" + key + "\",\"integrity\":\"sha512-x\",\"size\":1}\n"
	}
	for _, tc := range []struct {
		name     string
		files    map[string]string // path under index-v5 -> content
		packages []string
		tarballs []string
	}{
		{name: "no cache: nothing fetched"},
		{
			name: "documents and tarballs, scoped names unescaped",
			files: map[string]string{
				"89/aa/1": entry(cacheKeyPrefix + "https://registry.npmjs.org/@opencode-ai%2fplugin"),
				"0e/bb/2": entry(cacheKeyPrefix+"https://registry.npmjs.org/zod") +
					entry(cacheKeyPrefix+"https://registry.npmjs.org/zod/-/zod-4.1.8.tgz"),
			},
			packages: []string{"@opencode-ai/plugin", "zod"},
			tarballs: []string{"zod/-/zod-4.1.8.tgz"},
		},
		{
			name: "repeated requests counted once; other keys and broken lines skipped",
			files: map[string]string{
				"01/01/a": entry(cacheKeyPrefix+"https://registry.npmjs.org/ws") + entry(cacheKeyPrefix+"https://registry.npmjs.org/ws"),
				"02/02/b": entry("pacote:tarball:ws@8") + "no tab here\n" + "abc\t{broken\n",
			},
			packages: []string{"ws"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			for rel, body := range tc.files {
				p := filepath.Join(home, ".npm", "_cacache", "index-v5", rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := registryFetches(home)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Packages, tc.packages) || !slices.Equal(got.Tarballs, tc.tarballs) {
				t.Errorf("got packages %q tarballs %q, want %q %q", got.Packages, got.Tarballs, tc.packages, tc.tarballs)
			}
		})
	}
}
