// Package probe is the store half of the Lockers' startup checks
// (queuelock, shadowlock and migration Ready): [Tables] reads one row of
// each table a Locker uses, writing nothing; [Writes] writes and deletes one
// short-lived cell in a row of its own in each table a Locker writes, to
// find a role without MODIFY. Both turn a failure into an error that names
// the table and the fix. It has one text, so every Locker says the same
// thing about a missing table or a missing grant.
package probe
