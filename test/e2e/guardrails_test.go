package e2e_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/gocql/gocql"

	"github.com/partita-db/partita/internal/engine"
	"github.com/partita-db/partita/test/internal/testserver"
)

// TestGuardrailsDrivers: Cassandra 5.0's guardrails through gocql and the
// Python driver, for an ordinary role: a write past the warning threshold
// comes back with the warning in the response, one past the failure
// threshold is refused with InvalidRequest, and a superuser is not
// guarded. The messages are the ones a Cassandra 5.0.6 node with the same
// options gave (internal/engine/testdata/guardrails holds the full set).
func TestGuardrailsDrivers(t *testing.T) {
	srv := limitsNode(t, testserver.Options{PasswordAuthentication: true, Configure: func(c *engine.Config) {
		c.Guardrails.ItemsPerCollectionWarn, c.Guardrails.ItemsPerCollectionFail = 3, 5
		c.Guardrails.AllowFilteringEnabled = false
	}}, "s1_gr", 1)
	admin, err := loginCluster(srv, "cassandra", "cassandra").CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	mustExec(t, admin, "CREATE ROLE alice WITH PASSWORD = 'pw' AND LOGIN = true")
	s, err := loginCluster(srv, "alice", "pw").CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	const warnMsg = "Guardrail items_per_collection violated: Detected collection l with 4 items, this exceeds the warning threshold of 3."
	iter := s.Query("INSERT INTO s1_gr.t (k, c, l) VALUES (1, 1, [1, 2, 3, 4])").Iter()
	warnings := iter.Warnings()
	if err := iter.Close(); err != nil || !slices.Equal(warnings, []string{warnMsg}) {
		t.Fatalf("gocql write past the warning threshold: %v, warnings %q", err, warnings)
	}
	const failMsg = "Guardrail items_per_collection violated: Detected collection l with 6 items, this exceeds the failure threshold of 5."
	err = s.Query("INSERT INTO s1_gr.t (k, c, l) VALUES (1, 2, [1, 2, 3, 4, 5, 6])").Exec()
	var re gocql.RequestError
	if !errors.As(err, &re) || re.Code() != gocql.ErrCodeInvalid || re.Message() != failMsg {
		t.Fatalf("gocql write past the failure threshold: %v", err)
	}
	const filterMsg = "Guardrail allow_filtering violated: Querying with ALLOW FILTERING is not allowed. ALLOW FILTERING can potentially visit all the data in the table and have unpredictable performance."
	err = s.Query("SELECT * FROM s1_gr.t WHERE v = 'x' ALLOW FILTERING").Exec()
	if !errors.As(err, &re) || re.Code() != gocql.ErrCodeInvalid || re.Message() != filterMsg {
		t.Fatalf("gocql ALLOW FILTERING: %v", err)
	}
	var n int
	if err := s.Query("SELECT count(*) FROM s1_gr.t WHERE k = 1 AND c = 2").Scan(&n); err != nil || n != 0 {
		t.Fatalf("refused write was applied: %v, %d", err, n)
	}
	// The superuser is never guarded.
	mustExec(t, admin, "INSERT INTO s1_gr.t (k, c, l) VALUES (1, 3, [1, 2, 3, 4, 5, 6])")
	if err := admin.Query("SELECT * FROM s1_gr.t WHERE v = 'x' ALLOW FILTERING").Exec(); err != nil {
		t.Fatalf("superuser ALLOW FILTERING: %v", err)
	}

	if got, want := runPython(t, srv, "alice", "pw", "INSERT INTO s1_gr.t (k, c, l) VALUES (2, 1, [1, 2, 3, 4])"),
		"ok rows=0 warnings=['"+warnMsg+"']"; got != want {
		t.Fatalf("Python write past the warning threshold:\n got %s\nwant %s", got, want)
	}
	if got, want := runPython(t, srv, "alice", "pw", "INSERT INTO s1_gr.t (k, c, l) VALUES (2, 2, [1, 2, 3, 4, 5, 6])"),
		`InvalidRequest [] 'Error from server: code=2200 [Invalid query] message="`+failMsg+`"'`; got != want {
		t.Fatalf("Python write past the failure threshold:\n got %s\nwant %s", got, want)
	}
	if got, want := runPython(t, srv, "cassandra", "cassandra", "INSERT INTO s1_gr.t (k, c, l) VALUES (2, 3, [1, 2, 3, 4, 5, 6])"),
		"ok rows=0 warnings=None"; got != want {
		t.Fatalf("Python superuser write: %s", got)
	}
}
