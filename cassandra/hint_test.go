package cassandra

import (
	"errors"
	"strings"
	"testing"

	"github.com/gocql/gocql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A missing permission is a failure the user fixes with a GRANT: the error
// keeps the driver's error (which names the permission and the table) and
// points at the grant list; other errors carry no such hint.
func TestErrors_UnauthorizedSaysWhatToGrant(t *testing.T) {
	denied := codeError(gocql.ErrCodeUnauthorized)
	for _, err := range []error{storeErrors.Write("write", "queue_lock", denied), storeErrors.Read("fleet_phase", denied)} {
		var reqErr gocql.RequestError
		require.True(t, errors.As(err, &reqErr))
		assert.Equal(t, gocql.ErrCodeUnauthorized, reqErr.Code())
		assert.Contains(t, err.Error(), "docs/security.md")
	}
	for _, err := range []error{storeErrors.Write("write", "queue_lock", codeError(gocql.ErrCodeInvalid)), storeErrors.Read("t", codeError(gocql.ErrCodeOverloaded))} {
		assert.False(t, strings.Contains(err.Error(), "grant"), err.Error())
	}
}
