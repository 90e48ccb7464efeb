package queue

import "github.com/lockstep-go/lockstep"

// CheckShareToken refuses, as Adopt would and with no request, a token this
// Locker cannot adopt: malformed, tampered with, or for another table,
// scope or separator (errors wrap lockstep.ErrShareToken). Otherwise it
// returns the handle's ID and the ids the token names with their accesses,
// in the token's order. A composing Locker (package migration) checks a
// token with it before the admission an Adopt needs there.
func (l *Locker) CheckShareToken(tok string) (id string, members []lockstep.Request, err error) {
	t, err := decodeShareToken(tok)
	if err != nil {
		return "", nil, err
	}
	if err := l.fits(t); err != nil {
		return "", nil, err
	}
	for _, m := range t.Members {
		members = append(members, lockstep.Request{ID: m.Name, Access: m.Access})
	}
	return t.ID, members, nil
}
