// Package register is the resource the robustness harness owns, outside
// every nemesis: an HTTP server on loopback holding, per lock id, a fenced
// register and an unfenced counter, which workers read, modify and write in
// their critical sections, and a log of every request it applied or
// rejected, which the checkers read (package check).
//
// # The fenced register
//
// Per lock id: a value, and a fence, the highest token the register has
// seen. A read may carry the reader's token; a write carries the writer's
// token, the value it read and the value it writes. A write is accepted only
// if its token is at least the fence, and then raises the fence to its token;
// a read with a token raises the fence too. Raising the fence on reads is
// what makes a read-modify-write safe: without it, a holder whose lease
// lapsed between its read and its write, and whose write lands between its
// successor's read and write, is accepted (its token is still the highest
// written) and the successor's write then overwrites it — a lost update that
// fencing writes alone cannot prevent (Kleppmann, "How to do distributed
// locking", 2016, fences writes; a register that is read and written needs
// the fence on both).
//
// # The unfenced counter
//
// Beside each register, a counter that is read and written unconditionally:
// the resource as a user without fencing would have it. Lost updates there
// measure what a lease alone lets through (a client paused past its lease).
//
// # The log
//
// Every request is applied under one mutex, in the order Ops returns, with a
// timestamp taken under that mutex on the server's monotonic clock, in
// nanoseconds since the server's epoch (StartAt). A worker's history uses the
// same base (package history), so the checkers can compare them.
package register
