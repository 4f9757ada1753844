package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// initLine is one line of GODEBUG=inittrace=1 output, for example
// "init github.com/memhq/mem/internal/search @2.1 ms, 0.60 ms clock, 86112 bytes, 620 allocs".
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestNoWorkAtInit builds mem and mem-full, runs `version` of each with
// GODEBUG=inittrace=1 and fails for every package of mem that allocates at
// init: every mem process, every hook call, would pay for it before main.
// Regular expressions and tables are built on first use instead.
func TestNoWorkAtInit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	for _, pkg := range []string{".", "../mem-full"} {
		t.Run(filepath.Base(pkg), func(t *testing.T) { noWorkAtInit(t, pkg) })
	}
}

func noWorkAtInit(t *testing.T, pkg string) {
	bin := filepath.Join(t.TempDir(), "mem")
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mem version: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		m := initLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		seen++
		if !strings.HasPrefix(m[1], "github.com/memhq/mem/") {
			continue
		}
		bytes, _ := strconv.Atoi(m[2])
		allocs, _ := strconv.Atoi(m[3])
		if bytes != 0 || allocs != 0 {
			t.Errorf("%s does work at init: %d bytes, %d allocs (build it on first use)", m[1], bytes, allocs)
		}
	}
	if seen == 0 {
		t.Fatalf("no inittrace lines in the output of mem version:\n%s", out)
	}
}

// TestLeanLinks fails when mem links a package only mem-full should: their
// start-up (the MCP SDK, net/http, TLS, html/template) would cost every hook
// call; the commands that need them live in internal/fullcli.
func TestLeanLinks(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	heavy := []string{"net/http", "crypto/tls", "html/template", "encoding/gob",
		"github.com/modelcontextprotocol/go-sdk/mcp", "github.com/memhq/mem/internal/fullcli"}
	deps := strings.Fields(string(out))
	for _, h := range heavy {
		if slices.Contains(deps, h) {
			t.Errorf("mem links %s; the commands that need it belong in internal/fullcli (mem-full)", h)
		}
	}
}
