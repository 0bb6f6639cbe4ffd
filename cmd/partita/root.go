package main

import "github.com/spf13/cobra"

// newRootCmd builds the command tree.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "partita",
		Short: "Partita, a Cassandra-compatible wide-column database",
		// Errors are printed once, by main; usage only for usage errors.
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.AddCommand(
		newServeCmd(),
		newBenchCmd(),
		newSplitCmd(),
		newVersionCmd(),
	)
	root.AddCommand(newSnapshotCmds()...)
	root.AddCommand(newAdviseCmd(), newTableStatsCmd(), newTableHistogramsCmd(), newTopPartitionsCmd())
	return root
}
