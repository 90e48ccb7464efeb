// Package inspect reads one lock id's cells in the lock tables and says who
// holds the lock and who waits for it, writing nothing: the queue lock's
// owner and queue cells (modes new and combined), in line order, and the
// legacy lock's main and shadow rows (modes legacy and combined).
//
// It is the read side of `lockctl inspect` and of lockd's web view. It
// depends on the Store interface only, like the algorithms whose cells it
// reads; the formats are those package internal/layout owns:
//
//	queue_lock    row = lock id   queue cells  <20-digit µs>/q/<owner>  (one per acquisition in line)
//	                              owner cells  ~o/<process>/<incarnation> (value: owner id, access)
//	                              floor cell   ~~floor (reads start at it)
//	legacy_main   row = lock id   one cell per owner (column = owner id)
//	legacy_shadow row = lock id   one cell per contender
//
// Read makes four reads of the store (the floor, the queue partition, the two
// legacy rows) and takes no lock, so it never delays an acquisition; what it
// returns is a snapshot that may be stale by the time it is shown.
package inspect
