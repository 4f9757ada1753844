// Command testsummary reads `go test -json` on stdin and prints what a
// person needs of it: each package's result line, the whole output of every
// failing test, and at the end the reasons tests gave for skipping
// themselves ("SKIPPED: ..."), one line each. It exits 1 when a test or a
// package failed. scripts/test runs it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

func run(in io.Reader, out io.Writer) int {
	var (
		buf     = map[string][]string{} // output of each running test, by package and name
		skips   []string
		failed  bool
		scanner = bufio.NewScanner(in)
	)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	for scanner.Scan() {
		line := scanner.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil {
			fmt.Fprintln(out, string(line)) // not JSON: the build's own messages
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			if i := strings.Index(e.Output, "SKIPPED: "); i >= 0 {
				why := strings.TrimSpace(e.Output[i+len("SKIPPED: "):])
				if !slices.Contains(skips, why) {
					skips = append(skips, why)
				}
			}
			if e.Test == "" {
				// A package's own lines: its result, build failures, panics.
				if !strings.HasPrefix(e.Output, "=== ") && !strings.HasPrefix(e.Output, "PASS") &&
					!strings.HasPrefix(e.Output, "--- ") {
					fmt.Fprint(out, e.Output)
				}
				continue
			}
			buf[key] = append(buf[key], e.Output)
		case "fail":
			failed = true
			if e.Test != "" {
				fmt.Fprint(out, strings.Join(buf[key], ""))
			}
			delete(buf, key)
		case "pass", "skip":
			delete(buf, key)
		}
	}
	if err := scanner.Err(); err != nil {
		fmt.Fprintln(out, "reading go test's output:", err)
		failed = true
	}
	for _, s := range skips {
		fmt.Fprintln(out, "SKIPPED:", s)
	}
	if failed {
		return 1
	}
	return 0
}
