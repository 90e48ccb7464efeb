package lease

import "container/heap"

// dueHeap orders the scheduled leases by their next event (Lease.at), ties
// by the order of Start: the Scheduler sleeps until the first and handles
// due entries in this order, so a simulated run is a function of its inputs.
type dueHeap []*Lease

func (h dueHeap) Len() int { return len(h) }
func (h dueHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].due, h[j].due = i, j
}
func (h *dueHeap) Push(x any) {
	l := x.(*Lease)
	l.due = len(*h)
	*h = append(*h, l)
}
func (h *dueHeap) Pop() any {
	old := *h
	l := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	l.due = -1
	return l
}

// readyHeap orders the leases whose renewal is due but waits for a free
// slot (Options.MaxInFlight) by when it fell due, ties by the order of
// Start: the longest-waiting renewal runs first.
type readyHeap []*Lease

func (h readyHeap) Len() int { return len(h) }
func (h readyHeap) Less(i, j int) bool {
	if h[i].renewAt != h[j].renewAt {
		return h[i].renewAt < h[j].renewAt
	}
	return h[i].seq < h[j].seq
}
func (h readyHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].ready, h[j].ready = i, j
}
func (h *readyHeap) Push(x any) {
	l := x.(*Lease)
	l.ready = len(*h)
	*h = append(*h, l)
}
func (h *readyHeap) Pop() any {
	old := *h
	l := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	l.ready = -1
	return l
}

// place puts l in the due heap at time at, or moves it there.
func (h *dueHeap) place(l *Lease, at int64) {
	l.at = at
	if l.due < 0 {
		heap.Push(h, l)
		return
	}
	heap.Fix(h, l.due)
}

// remove takes l out of the due heap if it is there.
func (h *dueHeap) remove(l *Lease) {
	if l.due >= 0 {
		heap.Remove(h, l.due)
	}
}

// remove takes l out of the ready heap if it is there.
func (h *readyHeap) remove(l *Lease) {
	if l.ready >= 0 {
		heap.Remove(h, l.ready)
	}
}
