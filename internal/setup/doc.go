// Package setup is what every Locker of the module is set up with and
// checks when it starts, apart from any algorithm:
//
//   - the process-wide settings (Process: clock, process id, logger,
//     observer, fencing, separator, deadlock detection), which each
//     Locker's constructor resolves once (Process.Resolve: the defaults,
//     and each bad value's *lockstep.ConfigError) before it builds
//     anything; the cores, the lock manager and the deadlock detector take
//     them resolved, and a composer hands them down to the cores it builds
//     (Process.Half: process.go);
//   - the lease timing every algorithm's Options share, resolved alike
//     (Lease: settings.go);
//   - the names of processes and acquisitions: process ids, checked in one
//     place, and the owner-id issuer that gives every acquisition a column
//     of its own (ValidateProcessID, Owners: ident.go);
//   - the store half of the Lockers' startup checks (queuelock, shadowlock
//     and migration Ready): ProbeTables reads one row of each table a Locker
//     uses, writing nothing; ProbeWrites writes and deletes one short-lived
//     cell in a row of its own in each table a Locker writes, to find a role
//     without MODIFY. Both turn a failure into an error that names the table
//     and the fix, one text for every Locker (probe.go).
package setup
