package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
)

// benchCommand is the benchmark harness's command. It is a binary of its
// own (cmd/partita-bench) so that this one neither compiles nor links the
// harness's clients and plotting libraries.
const benchCommand = "partita-bench"

// benchPackage is where `go run` finds the harness in this module.
const benchPackage = "github.com/partita-db/partita/cmd/partita-bench"

// newBenchCmd runs the harness with the arguments given: partita-bench
// beside this executable or on PATH, else `go run` of its package (which
// works inside a clone of this module).
func newBenchCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "bench [flags]",
		Short:              "Run the benchmark harness (partita-bench; see partita bench --help)",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			argv, err := benchArgv(args)
			if err != nil {
				return err
			}
			// Exec, not a child: the harness then gets the terminal's
			// signals and its exit code is this command's.
			return syscall.Exec(argv[0], argv, os.Environ())
		},
	}
}

// benchArgv is the command line that runs the harness with args.
func benchArgv(args []string) ([]string, error) {
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), benchCommand)
		if st, err := os.Stat(beside); err == nil && !st.IsDir() {
			return append([]string{beside}, args...), nil
		}
	}
	if path, err := exec.LookPath(benchCommand); err == nil {
		return append([]string{path}, args...), nil
	}
	if goTool, err := exec.LookPath("go"); err == nil {
		return append([]string{goTool, "run", benchPackage}, args...), nil
	}
	return nil, fmt.Errorf("%s is neither beside this binary nor on PATH, and there is no go tool to build it: go install %s", benchCommand, benchPackage)
}
