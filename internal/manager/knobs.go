package manager

import "github.com/lockstep-go/lockstep/internal/deadlock"

// TestingKnobs switch on this package's planted defects, for the model
// checks' negative controls (propertytests/doc.go): each restores a defect
// that was found and fixed. A Locker passes its Options.TestingKnobs'
// Manager field to New; production code leaves it nil.
type TestingKnobs struct {
	// GroupUnordered takes a group's members in the caller's order, each
	// request before its ancestors' intention locks, instead of the
	// canonical order: two groups naming the same ids in opposite orders can
	// each hold one and wait for the other for ever.
	GroupUnordered bool
	// SkipIntention plans a hierarchical lock without the intention locks on
	// its ancestors: a lock on "a/b" and one on "a" then share no id, and
	// both hold at once.
	SkipIntention bool
	// GroupReturnsLostMember returns a group whose member was lost while
	// later members were being taken, with Lost() already closed and that
	// member's token from a lease that ended.
	GroupReturnsLostMember bool
	// PublishAskedAccess ignores Step.Take: the deadlock records of a
	// Locker that takes every member exclusively (legacy, combined, a
	// migration Locker in those modes) show the access asked, as they first
	// did, so two units holding one id each "Shared" (really exclusively)
	// and waiting for the other's show no conflict, and wait until their
	// deadlines.
	PublishAskedAccess bool
	// MaskIntention accepts a mask ("a/*") in an intention access and
	// takes its parent in it, as the manager first did: a mask in IS beside
	// a child's holder in X (IX on the parent) both hold, though the mask
	// names that child.
	MaskIntention bool
	// FlatPaths accepts a lockstep.Flat request whose id holds the
	// separator and takes it as one name, without its ancestors' intention
	// locks (seed 003's reading of a query without HIERARCHY): a flat
	// holder of "a/b" and a holder of "a" in X share no member, and both
	// hold.
	FlatPaths bool
	// Deadlock plants the deadlock detector's defects (internal/deadlock):
	// a Locker passes them to the detector it builds.
	Deadlock deadlock.Knobs
}

// DeadlockKnobs returns the deadlock detector's knobs of k, nil for a nil k.
func (k *TestingKnobs) DeadlockKnobs() *deadlock.Knobs {
	if k == nil {
		return nil
	}
	return &k.Deadlock
}
