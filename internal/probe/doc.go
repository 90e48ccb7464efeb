// Package probe is the store half of the Lockers' startup checks
// (queuelock, shadowlock and migration Ready): it reads one row of each
// table a Locker uses, writing nothing, and turns a failure into an error
// that names the table and the fix. It has one text, so every Locker says
// the same thing about a missing table.
package probe
