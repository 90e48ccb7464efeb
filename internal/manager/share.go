package manager

import (
	"fmt"

	"github.com/lockstep-go/lockstep"
)

// Sharer is an Algorithm that shares the locks it returned (lockstep.Sharer's
// Share): the queue lock's core, and the local-handoff layer over an
// algorithm that can share what its store holds.
type Sharer interface {
	Share(lk lockstep.Lock) (string, error)
}

// Share returns a token naming lk, a lock this Locker returned and still
// holds, through its Algorithm, which must be a Sharer (lockstep.Sharer's
// Share). It sends no request; an Algorithm that cannot share is refused
// with an error wrapping lockstep.ErrIncompatibleMode, and nothing changes.
func (l *Locker) Share(lk lockstep.Lock) (string, error) {
	sh, ok := l.alg.(Sharer)
	if !ok {
		return "", fmt.Errorf("%w: %s: this Locker cannot share its locks", lockstep.ErrIncompatibleMode, l.c.Name)
	}
	return sh.Share(lk)
}
