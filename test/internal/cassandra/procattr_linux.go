package cassandra

import "syscall"

// procAttr makes the kernel SIGKILL the JVM when the thread that started it
// dies, which happens when the test binary exits without running its
// cleanups (a panic, a timeout, kill -9): the backstop behind invariant 3.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
