package queue

import (
	"fmt"
	"sync"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/layout"
)

// An adoption (adopt.go) of an id whose in-process turn this Locker's own
// contenders hold — acquisitions waiting in the store's line or claiming,
// none holding — does not wait for the turn: those contenders wait for
// the very lock it adopts. It writes the adoption column instead
// (layout.AdoptColumn), which no turn slot names, so their claims count
// its owner cell as another owner's and keep waiting until it is gone
// (docs/algorithms.md, section 8.7). One adoption per id holds that
// column at a time; adoptions records which, and in what access.

// adoptions is the set of ids whose adoption column an adopted lock of
// this Locker holds. Safe for concurrent use; its mutex is taken before
// the turns' (Turns).
type adoptions struct {
	mu  sync.Mutex
	ids map[string]lockstep.Access
}

// place decides where an adoption of m writes its owner cell: a turn
// slot's column if the turn is free for m.Access (beside false; the
// caller then holds that turn), or the adoption column if only
// contenders hold it (beside true; the column is the adoption's until
// dropColumn). It refuses, with ErrLocked, an id this Locker holds in an
// access conflicting with m's, and one whose adoption column is taken.
func (l *Locker) place(m shareMember) (ocol string, slot int, beside bool, err error) {
	l.adopts.mu.Lock()
	defer l.adopts.mu.Unlock()
	held, ok := l.adopts.ids[m.Row]
	if ok && !held.Compatible(m.Access) {
		return "", 0, false, adoptRefusal(m, "holds it (an adoption)")
	}
	if slot, ok := l.turns.TryTake(m.Row, m.Access); ok {
		return l.column(m.Access, slot), slot, false, nil
	}
	switch {
	case l.turns.Holding(m.Row, m.Access):
		return "", 0, false, adoptRefusal(m, "holds it")
	case ok:
		return "", 0, false, adoptRefusal(m, "holds it by another adoption beside its own waiters")
	}
	if l.adopts.ids == nil {
		l.adopts.ids = make(map[string]lockstep.Access)
	}
	l.adopts.ids[m.Row] = m.Access
	return l.adoptColumn(m.Access), 0, true, nil
}

func adoptRefusal(m shareMember, why string) error {
	return fmt.Errorf("queuelock: adopt %q: %w: this Locker itself %s; adopt on a Locker that does not", m.Name, lockstep.ErrLocked, why)
}

// adoptColumn names the adoption column in access a: the Locker's, or its
// twin in the intention range (column). The planted AdoptIntoTurnColumn
// names slot 0's column instead, the one an exclusive contender claims in.
func (l *Locker) adoptColumn(a lockstep.Access) string {
	if l.cfg.knobs.AdoptIntoTurnColumn {
		return l.column(a, 0)
	}
	col := layout.AdoptColumn(l.ownerCol)
	if l.cfg.intention && layout.Intention(a) {
		return layout.IntentionColumn(col)
	}
	return col
}

// takeColumn takes id's adoption column back for a retried delete of the
// owner cell written there (share.go, leave), if no other adoption has
// it: the column is then the caller's until dropColumn.
func (l *Locker) takeColumn(id string, a lockstep.Access) bool {
	l.adopts.mu.Lock()
	defer l.adopts.mu.Unlock()
	if _, ok := l.adopts.ids[id]; ok {
		return false
	}
	if l.adopts.ids == nil {
		l.adopts.ids = make(map[string]lockstep.Access)
	}
	l.adopts.ids[id] = a
	return true
}

// dropColumn gives id's adoption column back.
func (l *Locker) dropColumn(id string) {
	l.adopts.mu.Lock()
	defer l.adopts.mu.Unlock()
	delete(l.adopts.ids, id)
	if len(l.adopts.ids) == 0 {
		l.adopts.ids = nil
	}
}
