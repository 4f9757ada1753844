package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	cases := []struct {
		name, in string
		code     int
		want     []string
		not      []string
	}{
		{"pass", `{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"noise\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}
{"Action":"pass","Package":"p"}`, 0, []string{"ok  \tp\t0.1s"}, []string{"noise"}},
		{"fail and skip", `{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: got 1, want 2\n"}
{"Action":"fail","Package":"p","Test":"TestB"}
{"Action":"output","Package":"q","Test":"TestC","Output":"    c_test.go:9: SKIPPED: no rqlite server\n"}
{"Action":"skip","Package":"q","Test":"TestC"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.2s\n"}
{"Action":"fail","Package":"p"}`, 1, []string{"b_test.go:3: got 1, want 2", "FAIL\tp", "SKIPPED: no rqlite server"}, nil},
		{"build failure", "# p\nx.go:1: syntax error\n" + `{"Action":"fail","Package":"p"}`, 1, []string{"x.go:1: syntax error"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			if code := run(strings.NewReader(c.in), &out); code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output %q lacks %q", out.String(), w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(out.String(), n) {
					t.Errorf("output %q has %q", out.String(), n)
				}
			}
		})
	}
}
