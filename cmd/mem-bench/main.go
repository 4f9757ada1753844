// Command mem-bench generates synthetic memory and measures mem as whole
// processes (scripts/bench), and runs the reliability suite (scripts/stress).
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "gen":
		fs := flag.NewFlagSet("gen", flag.ExitOnError)
		n := fs.Int("n", 10000, "observations")
		shard := fs.Int("shard", 100000, "observations per file")
		seed := fs.Uint64("seed", 1, "random seed")
		out := fs.String("out", ".bench/gen", "output folder")
		fs.Parse(os.Args[2:])
		var paths []string
		paths, err = generate(*out, *n, *shard, *seed)
		for _, p := range paths {
			fmt.Println(p)
		}
	case "bench":
		err = runBench(os.Args[2:])
	case "stress":
		err = runStress(os.Args[2:])
	case "hold-lock":
		err = holdLock(os.Args[2:])
	case "spin":
		err = spin(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mem-bench:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: mem-bench gen|bench|stress|hold-lock|spin [flags]")
	os.Exit(2)
}
