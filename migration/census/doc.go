// Package census reads the census of a fleet migrating between lock
// algorithms: one entry per live process that locks through package
// migration, saying which mode its flag gives and how many locks it holds
// and is taking in each mode. Package migration's Locker keeps its own entry
// alive (a heartbeat, one TTL'd cell per process) and its Controller refuses
// a phase move while an entry uses a mode the new phase forbids; operators
// read it with Read or `lockctl fleet`.
//
// The census lives in one partition (Row) of its table (DefaultTable unless
// configured), one cell per process: the column is the process id and the
// value is JSON with modes by name, so a reader of any version can print
// what it cannot interpret:
//
//	{"process":"web-1","host":"h1","configured":"combined",
//	 "held":{"combined":2},"acquiring":{"new":1},"version":"v1.4.2",
//	 "time":"2026-11-27T14:00:00.123456Z"}
//
// "acquiring" is left out when empty; "time" is the sender's clock. An entry
// that cannot be decoded is returned with Err set, and blocks every move.
package census
