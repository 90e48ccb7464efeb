// Package combine is the combined lock's algorithm: the queue lock's core
// (internal/queue) and then the legacy lock's core (internal/shadow) taken
// on the same id, held as one lock (manager.Algorithm). It calls the two
// cores directly: their parts (Acquire), and the legacy core's prepared
// round (Prepare), which a goroutine of this package runs beside the queue
// half's claims (beside.go). Package combined builds a lock manager over
// it; package migration takes its acquisitions in mode combined.
//
// Both halves are exclusive whatever access is asked; only the head of the
// queue contends on the legacy tables; one fencing token is drawn once both
// halves are held. The arguments are in docs/algorithms.md, section 6.
package combine
