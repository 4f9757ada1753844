// Command mem-e2e runs mem inside the real agent CLIs against a fake model
// server and prints PASS/FAIL per check (see internal/e2e/README.md).
// Started as "mem" it is the hook recorder the harness installs.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/memhq/mem/internal/e2e"
)

func main() {
	if e2e.IsRecorder() {
		os.Exit(e2e.Record(os.Args[1:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "hello" { // the yardstick for process times
		fmt.Println("hello")
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "versions" {
		names := make([]string, 0, len(e2e.Versions))
		for k := range e2e.Versions {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Println(k, e2e.Versions[k])
		}
		return
	}
	var opt e2e.Options
	flag.StringVar(&opt.Mem, "mem", "", "the mem binary to test")
	flag.StringVar(&opt.NPMBin, "npm-bin", "", "node_modules/.bin holding the agent CLIs")
	flag.StringVar(&opt.Work, "work", "", "scratch folder (default: a new temporary folder)")
	flag.StringVar(&opt.Fixtures, "fixtures", "", "save the hook events each CLI sent into this folder")
	flag.DurationVar(&opt.Timeout, "timeout", 3*time.Minute, "time one CLI run may take")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: mem-e2e -mem PATH -npm-bin DIR [flags] claude|codex|gemini|opencode|copilot|across|all ...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if opt.Mem == "" || opt.NPMBin == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var agents []*e2e.Agent
	for _, name := range flag.Args() {
		if name == "all" {
			agents = append(agents, e2e.Agents...)
			continue
		}
		if name == "across" {
			opt.Across = true
			continue
		}
		a := e2e.AgentByName(name)
		if a == nil {
			fmt.Fprintf(os.Stderr, "mem-e2e: agent %q: want claude, codex, gemini, opencode, copilot, across or all\n", name)
			os.Exit(2)
		}
		agents = append(agents, a)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mem-e2e:", err)
		os.Exit(1)
	}
	opt.Self = self
	if opt.Mem, err = filepath.Abs(opt.Mem); err != nil {
		fmt.Fprintln(os.Stderr, "mem-e2e:", err)
		os.Exit(1)
	}
	temp := opt.Work == ""
	if temp {
		if opt.Work, err = os.MkdirTemp("", "mem-e2e-"); err != nil {
			fmt.Fprintln(os.Stderr, "mem-e2e:", err)
			os.Exit(1)
		}
	}
	opt.Out = os.Stdout
	if !e2e.Main(opt, agents) {
		fmt.Printf("scratch folders, request and hook logs kept in %s\n", opt.Work)
		os.Exit(1)
	}
	if temp {
		os.RemoveAll(opt.Work)
	}
}
