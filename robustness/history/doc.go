// Package history is the record of a robustness run as its workers saw it:
// one JSON line per operation (acquire, renew, lost, write, release), written
// by each worker process (cmd/rbworker) as the operation returns, and read
// back by the checkers (package check).
//
// # Time
//
// Every time in a history is nanoseconds since a shared epoch, measured on
// the host's monotonic clock: the runner passes the epoch to every worker as
// Unix nanoseconds; a worker reads the wall clock once, at start, to place
// its own monotonic origin on that base (Clock), and from then on only
// elapsed monotonic time moves its timestamps. All workers and the register
// run on one host, so their timestamps are comparable up to the error of
// those single wall-clock reads (microseconds, unless the host's wall clock
// is stepped while the workers start). A worker's clock is never moved by a
// wall-clock step after its start, and the nemeses skew only the Cassandra
// servers' clocks, never the host's.
//
// # Files
//
// A history directory holds one file per worker process, "<process>.jsonl",
// and may hold the register's log (RegisterFile). Lines are written one write
// call each, unbuffered, so a worker killed with SIGKILL loses at most the
// operation in flight.
package history
