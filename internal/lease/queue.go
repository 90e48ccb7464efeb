package lease

import "container/heap"

// leaseHeap is a min-heap of leases by O's key, ties by the order of Start,
// so a simulated run is a function of its inputs. O's pos is the field that
// holds a lease's index in the heap, -1 when it is not there.
type leaseHeap[O heapOrder] []*Lease

type heapOrder interface {
	key(*Lease) int64
	pos(*Lease) *int
}

// dueHeap orders the scheduled leases by their next event (Lease.at): the
// Scheduler sleeps until the first and handles due entries in this order.
type dueHeap = leaseHeap[byDue]

// readyHeap orders the leases whose renewal is due but waits for a free
// slot (Options.MaxInFlight) by when it fell due: the longest-waiting
// renewal runs first.
type readyHeap = leaseHeap[byReady]

type byDue struct{}

func (byDue) key(l *Lease) int64 { return l.at }
func (byDue) pos(l *Lease) *int  { return &l.due }

type byReady struct{}

func (byReady) key(l *Lease) int64 { return l.renewAt }
func (byReady) pos(l *Lease) *int  { return &l.ready }

func (h leaseHeap[O]) Len() int { return len(h) }
func (h leaseHeap[O]) Less(i, j int) bool {
	var o O
	if a, b := o.key(h[i]), o.key(h[j]); a != b {
		return a < b
	}
	return h[i].seq < h[j].seq
}
func (h leaseHeap[O]) Swap(i, j int) {
	var o O
	h[i], h[j] = h[j], h[i]
	*o.pos(h[i]), *o.pos(h[j]) = i, j
}
func (h *leaseHeap[O]) Push(x any) {
	var o O
	l := x.(*Lease)
	*o.pos(l) = len(*h)
	*h = append(*h, l)
}
func (h *leaseHeap[O]) Pop() any {
	var o O
	old := *h
	l := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	*o.pos(l) = -1
	return l
}

// place puts l in the due heap at time at, or moves it there.
func place(h *dueHeap, l *Lease, at int64) {
	l.at = at
	if l.due < 0 {
		heap.Push(h, l)
		return
	}
	heap.Fix(h, l.due)
}

// remove takes l out of the heap if it is there.
func (h *leaseHeap[O]) remove(l *Lease) {
	var o O
	if i := *o.pos(l); i >= 0 {
		heap.Remove(h, i)
	}
}
