//go:build !linux

package cassandra

import "syscall"

// procAttr has no parent-death signal outside Linux: there, only the
// cleanups stop the JVM.
func procAttr() *syscall.SysProcAttr { return nil }
