// Package lint holds repository-wide checks that run as ordinary tests: the
// one-way import flow of docs/architecture.md.
package lint
