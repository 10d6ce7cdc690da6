// SPDX-License-Identifier: MIT
// gocopy SRC DST: copy a file the way Go programs do (io.Copy between two
// *os.File, which makes its own system calls: read/write or
// copy_file_range), for the watcher's test of Go programs.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	in, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := os.Create(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n, err := io.Copy(out, in)
	if err == nil {
		err = out.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(n)
	os.Exit(3)
}
