// Package bugs holds the deliberate defects the model checks switch on to
// prove they have teeth (negative controls, propertytests/doc.go). A defect of Set is
// switched on per acquisition by the context passed to Lock or TryLock
// (With, From); a Defect for the whole process (Plant, Planted). Both work
// only in a build with the lockstep_bugs tag: in any other build With
// returns its context unchanged, From returns no defect without looking at
// the context, Planted returns false, and the algorithms' checks of them
// are constant branches the compiler drops. The package is internal, so
// users of the library cannot reach it either way.
package bugs

import "reflect"

// Set names the defects to plant in one acquisition.
type Set struct {
	// SkipOwnerReread makes a queue-lock claim succeed right after writing the
	// owner cell, without reading the owner cells (lemma 1's check).
	SkipOwnerReread bool `json:",omitempty"`
	// ReuseTombstonedTimestamp makes a queue lock rewrite its owner cell,
	// after deleting it in a lost claim race, with the tombstone's own
	// timestamp, so the tombstone wins the tie and the write vanishes.
	ReuseTombstonedTimestamp bool `json:",omitempty"`
	// QueueCellsWithoutTTL writes queue cells that never expire, so a crashed
	// waiter blocks the queue forever.
	QueueCellsWithoutTTL bool `json:",omitempty"`
	// ReuseOwnerAfterStoreError makes a legacy lock retry a round that hit a
	// store error under the same owner id. It brings back a real bug the
	// model checks found (propertytests/testdata/regressions): the retry can
	// read its own half-deleted main cell as a held lock just before its
	// delete lands.
	ReuseOwnerAfterStoreError bool `json:",omitempty"`
	// NoRoundDeadline lets a legacy round write its main cell however long
	// ago its shadow write was sent, as listing 4 does. Another real bug the
	// model checks found: a round stalled past the TTL lets its shadow cell
	// expire under it, and a contender through.
	NoRoundDeadline bool `json:",omitempty"`
	// IgnoreContentionHint lets a queue-lock Lock take the fast path even on
	// an id this process just saw contended, so an arrival whose Lock calls
	// are cancelled one after another writes an owner cell each time and can
	// keep failing the queue head's claims (fastpath.go).
	IgnoreContentionHint bool `json:",omitempty"`
	// NoFloorLag makes a queue-lock read raise its floor to the oldest live
	// queue cell it saw, with no lag behind its clock: a real bug the
	// arrival-storm check found (propertytests/testdata/regressions). A
	// process whose clock leads, re-locking at once, keeps its floor above
	// each new name a lagging waiter takes, and bypasses it again and again.
	NoFloorLag bool `json:",omitempty"`
	// IgnorePublishedFloor makes queue-lock reads disregard the published
	// floor cell, so a waiter whose name another process's floor has passed
	// keeps its place, where that process never sees it: a real bug the
	// sweep found.
	IgnorePublishedFloor bool `json:",omitempty"`
	// WakeGrants makes a queue-lock waiter woken by a wake-up (Options.Wake)
	// take it for a grant: it writes its owner cell and holds, without the
	// claim's read of lemma 1.
	WakeGrants bool `json:",omitempty"`
	// WakeOnly makes queue-lock waiters with wake-ups on stop polling: they
	// read again only when woken, so a lost wake-up stalls the line.
	WakeOnly bool `json:",omitempty"`
	// ReaderBypass makes a queue-lock request in any access but Exclusive
	// ignore the line: it claims as soon as the owner cells allow, so a
	// reader passes an earlier waiting writer, and a stream of readers
	// starves it.
	ReaderBypass bool `json:",omitempty"`
}

// Union returns the defects of s and of o.
func (s Set) Union(o Set) Set {
	a, b := reflect.ValueOf(&s).Elem(), reflect.ValueOf(o)
	for i := range a.NumField() {
		if b.Field(i).Bool() {
			a.Field(i).SetBool(true)
		}
	}
	return s
}
