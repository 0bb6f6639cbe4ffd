// Package cqltest runs datadriven CQL sessions for tests: statements in,
// the rows or the exact error out, printed the way cqlsh shows them.
//
// Commands (testdata files, github.com/cockroachdb/datadriven):
//
//	exec                   run each statement of the input; print "ok", the
//	                       rows, or "error (<code>): <message>" for each
//	query [page-size=N]    like exec, for one SELECT, fetching every page;
//	                       with page-size, each page is printed separately
//	bind                   prepare each statement and execute it once per
//	                       indented line of values under it ("v | v"; unset,
//	                       null, 0x..., or literals: bind.go), as a driver
//	                       does
//	restart                close and reopen the store and engine (data and
//	                       schema must survive)
//	split op=split|revert|merge table=ks.t [strategy=range|rollover|hash]
//	                       an operator's split command on the partition whose
//	                       key (CQL literals) is the input
//	split-finish           run every migration under way to its end
//	config KEY=VALUE       reopen the engine with a cassandra.yaml option
//	                       (materialized_views_enabled,
//	                       user_defined_functions_enabled, or any guardrail,
//	                       request timeout or partition_write_rate_* option,
//	                       which accumulate over the file)
//
// Warnings are printed as "warning: ..." lines before the result.
package cqltest
