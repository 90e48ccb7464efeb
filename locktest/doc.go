// Package locktest is the behaviour suite every lockstep.Locker in this module
// must pass: the scenarios of the core issue (TryLock exclusion, independence
// of ids, leases kept and lost, N×K counter increments). It is test support,
// imported only by tests: shadowlock and queuelock run it on the model inside
// a testing/synctest bubble (virtual time), and package cassandra runs it on a
// real Cassandra under the integration build tag (real time). RunFencing
// holds the fencing scenarios (tokens ordered as ownership, draws that fail
// or outlive the lease), run on the model by every Locker of the module.
package locktest
