package differential_test

import (
	"os"
	"strings"
	"testing"

	"github.com/partita-db/partita/internal/cqltest"
)

// skipUnlessReferenceHas skips a datadriven file whose `config KEY=VALUE`
// directives (cassandra.yaml options Partita is reopened with) the
// reference node does not share, as its system_views.settings shows: the
// file's answers hold only for a node configured so.
func skipUnlessReferenceHas(t *testing.T, ref *cqltest.WireSession, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		args, ok := strings.CutPrefix(line, "config ")
		if !ok {
			continue
		}
		for _, arg := range strings.Fields(args) {
			key, want, _ := strings.Cut(arg, "=")
			out := ref.Exec("SELECT value FROM system_views.settings WHERE name = '"+key+"'", 0)
			lines := strings.Split(out, "\n")
			got := ""
			if len(lines) > 1 {
				got = strings.TrimSpace(lines[1])
			}
			if got != want {
				t.Skipf("the reference node has %s=%s; %s needs %s", key, got, path, want)
			}
		}
	}
}
