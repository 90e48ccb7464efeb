package clustertest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReplication_SimpleOnOneDCAndPerDCOnSeveral(t *testing.T) {
	one := Topology{Hosts: map[string][]string{"datacenter1": {"a", "b", "c", "d"}}}
	assert.Equal(t, map[string]string{"class": "SimpleStrategy", "replication_factor": "3"}, one.Replication(3))
	assert.False(t, one.MultiDC())

	two := Topology{Hosts: map[string][]string{"dc1": {"a", "b"}, "dc2": {"c"}}}
	assert.True(t, two.MultiDC())
	assert.Equal(t, []string{"dc1", "dc2"}, two.DCs())
	assert.Equal(t, 3, two.Nodes())
	assert.Equal(t, map[string]string{"class": "NetworkTopologyStrategy", "dc1": "2", "dc2": "1"}, two.Replication(3))
	assert.Equal(t, map[string]string{"class": "NetworkTopologyStrategy", "dc1": "1", "dc2": "1"}, two.Replication(1))
	assert.Equal(t, "class=NetworkTopologyStrategy,dc1=2,dc2=1", Flag(two.Replication(3)))
	assert.Equal(t, "class=SimpleStrategy,replication_factor=3", Flag(one.Replication(3)))
}
