package split

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: a
// test's servers, stores and background workers must all stop.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
