package lease

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A TTL refused for being too short or not whole seconds gets advice that,
// followed, passes every check: 1.5s is told the minimum, 4s, not the next
// whole second, 2s, which would be refused next.
func TestConfig_TTLAdviceWhenFollowedIsAccepted(t *testing.T) {
	cases := []struct {
		ttl, skew time.Duration
		want      string
	}{
		{1500 * time.Millisecond, time.Second, "TTL: 1.5s leaves no safe lease: a cell may live only TTL − 1s (Cassandra expires whole seconds) − MaxServerSkew 1s = -500ms, " +
			"and the lease is half of that, at least 1s; use a TTL of at least 4s (or a smaller MaxServerSkew if your servers' clocks are kept closer)"},
		{3500 * time.Millisecond, time.Second, "use a TTL of at least 4s"},
		{2500 * time.Millisecond, 0, "use a TTL of at least 3s"},
		{4500 * time.Millisecond, time.Second, "TTL: 4.5s is not a whole number of seconds (Cassandra TTLs are seconds): use 5s"},
		{-time.Second, time.Second, "TTL: -1s must be positive: use a whole number of seconds, or leave it 0 for the default"},
	}
	use := regexp.MustCompile(`use (?:a TTL of at least )?(\d+s)`)
	for _, c := range cases {
		err := Config{TTL: c.ttl, MaxServerSkew: c.skew}.Validate()
		require.Error(t, err, "TTL %v", c.ttl)
		assert.Contains(t, err.Error(), c.want, "TTL %v", c.ttl)
		if c.ttl <= 0 {
			continue // the advice names no TTL
		}
		m := use.FindStringSubmatch(err.Error())
		require.NotNil(t, m, "TTL %v: no TTL advised in %q", c.ttl, err)
		advised, perr := time.ParseDuration(m[1])
		require.NoError(t, perr)
		fixed := Config{TTL: advised, MaxServerSkew: c.skew}
		fixed.Renew = fixed.DefaultRenew()
		assert.NoError(t, fixed.Validate(), "TTL %v: advised %v", c.ttl, advised)
	}
}
