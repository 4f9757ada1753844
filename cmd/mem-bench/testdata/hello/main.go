// Command hello is the floor scripts/bench measures every mem path against:
// a Go program that starts, prints one line and exits, built with the same
// toolchain as mem in the same run.
package main

import "fmt"

func main() {
	fmt.Println("hello, world")
}
