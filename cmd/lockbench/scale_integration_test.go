//go:build integration

package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The scale scenario on the cluster in LOCKBENCH_CASSANDRA_HOSTS (see
// real_integration_test.go): 3 worker processes over 50 ids for 2 s, for
// every algorithm the scale scenario runs on the real backend.
func TestRealScale_EveryAlgorithmAcquiresManyIDsAndReportsItsCosts(t *testing.T) {
	hosts := os.Getenv("LOCKBENCH_CASSANDRA_HOSTS")
	require.NotEmpty(t, strings.TrimSpace(hosts), "LOCKBENCH_CASSANDRA_HOSTS is empty: the integration tag needs a running Cassandra")
	o := realOptions{hosts: hosts, keyspace: "lockbench_test", replication: 1}
	_, err := prepareCassandra(t.Context(), o)
	require.NoError(t, err)
	tag := runTag()
	for _, a := range []algorithm{algoNew, algoLegacy, algoCombined, algoLWT} {
		t.Run(string(a), func(t *testing.T) {
			jobs := make([]scaleJob, 3)
			for i := range jobs {
				jobs[i] = scaleJob{Algorithm: a, Process: fmt.Sprintf("%s-it-%s-p%d", tag, a, i), Hosts: splitList(hosts),
					Keyspace: o.keyspace, Prefix: fmt.Sprintf("scale-it-%s-%s", tag, a), IDs: 50, Poll: 10 * time.Millisecond, Seed: uint64(i)}
			}
			res, err := runScaleWorkers(jobs, 2*time.Second)
			require.NoError(t, err)
			require.Positive(t, res.Acquisitions)
			assert.Len(t, res.Waits, res.Acquisitions)
			assert.Greater(t, res.IDs, 5, "a process takes many ids")
			assert.Equal(t, 3, res.Lockers)
			assert.GreaterOrEqual(t, res.Writes, 2*int64(res.Acquisitions), "a claim and a release at least")
			if a == algoLWT {
				assert.Zero(t, res.Reads, "LWT statements count as writes")
			} else {
				assert.GreaterOrEqual(t, res.Reads, int64(res.Acquisitions))
			}
		})
	}
}
