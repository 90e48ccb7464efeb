package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// A host name of any bytes and length gives a process id a Locker accepts,
// and two runs on one host get two ids.
func TestProcessID_AcceptedWhateverTheHostName(t *testing.T) {
	valid := regexp.MustCompile(`^lockctl-[A-Za-z0-9._:-]*-[0-9a-f]{16}$`)
	for _, host := range []string{"", "db-1.example.com", "a/b c\n\x00é", strings.Repeat("h", 400)} {
		id := processID(host)
		require.Regexp(t, valid, id, "host %q", host)
		require.LessOrEqual(t, len(id), 255, "host %q", host)
		lk, err := migration.New(model.New(&clock.Local{}), migration.Static(lockstep.ModeLegacy), &migration.Options{ProcessID: id})
		require.NoError(t, err, "host %q: id %q refused", host, id)
		require.NoError(t, lk.Close(t.Context()))
	}
	require.NotEqual(t, processID("h"), processID("h"))
}
