package lockd

import (
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/lockstep-go/lockstep"
)

// validFor is how long h's lock is certain to stay valid even if nothing
// more is renewed (lockstep.Expiring): 0 once lost or released, and 0 for
// a lock that does not say.
func (h *handle) validFor() time.Duration {
	if e, ok := h.lock.(lockstep.Expiring); ok {
		return e.ValidFor()
	}
	return 0
}

// validFor returns, by handle, how long each lock of the identity whose
// lease is still valid stays so: KeepAliveResponse.valid_for. A lock with
// no time left is left out, so a client gives it no more time; lockd's
// LOCK_LOST event follows for it.
func (id *identity) validFor() map[string]*durationpb.Duration {
	out := map[string]*durationpb.Duration{}
	for _, h := range id.handles() {
		if v := h.validFor(); v > 0 {
			out[h.id] = durationpb.New(v)
		}
	}
	return out
}
