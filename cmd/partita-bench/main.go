package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newBenchCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "partita-bench:", err)
		os.Exit(1)
	}
}
