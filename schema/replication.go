package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/lockstep-go/lockstep"
)

// dcNameRE matches the data-centre names a replication map may use. They are
// rendered inside single quotes, so the set excludes quotes and anything else
// that could end the literal.
var dcNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$`)

// maxFactor bounds a replication factor: anything above it is a typo.
const maxFactor = 99

// replicationLiteral validates a replication map and renders it as a CQL map
// literal with sorted keys, class first.
func replicationLiteral(m map[string]string) (string, error) {
	bad := func(format string, args ...any) error {
		return &lockstep.ConfigError{Field: "replication", Reason: fmt.Sprintf(format, args...)}
	}
	class := m["class"]
	short := strings.TrimPrefix(class, "org.apache.cassandra.locator.")
	switch short {
	case "SimpleStrategy":
		if len(m) != 2 || m["replication_factor"] == "" {
			return "", bad("SimpleStrategy takes exactly one option, replication_factor")
		}
	case "NetworkTopologyStrategy":
		if len(m) < 2 {
			return "", bad("NetworkTopologyStrategy needs at least one data centre factor")
		}
	case "":
		return "", bad("missing class")
	default:
		return "", bad("class %q is not SimpleStrategy or NetworkTopologyStrategy", class)
	}

	keys := make([]string, 0, len(m)-1)
	for k := range m {
		if k != "class" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	parts := []string{fmt.Sprintf("'class': '%s'", short)}
	for _, k := range keys {
		if !dcNameRE.MatchString(k) {
			return "", bad("%q is not a safe data centre name", k)
		}
		v := m[k]
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxFactor || strconv.Itoa(n) != v {
			return "", bad("factor %q for %q is not an integer in [1, %d]", v, k, maxFactor)
		}
		parts = append(parts, fmt.Sprintf("'%s': '%d'", k, n))
	}
	return "{" + strings.Join(parts, ", ") + "}", nil
}
