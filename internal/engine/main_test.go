package engine_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// test's servers, stores and background workers must all stop.
func TestMain(m *testing.M) {
	// gocql leaves a pool's redial loop behind when a session's connect
	// fails (tests refuse connections on purpose); it ends on its own.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/gocql/gocql.(*hostConnPool).connect"),
		goleak.IgnoreAnyFunction("github.com/gocql/gocql.(*hostConnPool).connectMany"))
}
