package lockstep_test

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Apache driver (github.com/apache/cassandra-gocql-driver/v2) belongs to
// the nested module cassandraapache: a service on gocql must not pull it through
// this module, not even as a name in its module graph.
func TestOtherDriver_NotInTheModuleGraph(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not available")
	}
	out, err := exec.Command("go", "list", "-m", "all").CombinedOutput()
	require.NoError(t, err, "go list -m all\n%s", out)
	require.NotContains(t, string(out), "github.com/apache/cassandra-gocql-driver")
	require.Contains(t, string(out), "github.com/gocql/gocql ", "this module's driver")
}
