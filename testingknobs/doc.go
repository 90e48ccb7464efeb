// Package testingknobs names the planted defects of the code every Locker of
// the module shares — the lease, the lock manager, the fencing-token draw
// and local handoff — so that a negative control in another module (the
// robustness suite's workers) can switch them on. The knobs of each
// algorithm are named by its public package (queuelock.TestingKnobs,
// shadowlock's, combined's, migration's); their Lease, Manager and Fencing
// fields, and migration's Cohort, take the types named here, and the same
// value may be given to every Locker of a process.
//
// It holds no defect of its own: each knob's branch sits in the code it
// plants a defect in, behind a nil check, and this package only gives the
// knob types public names (aliases) and exposes the two lease computations a
// control needs to agree with the Lockers it judges. Production code never
// imports it and leaves every TestingKnobs nil; each knob breaks the lock,
// which is what a negative control asserts its checker catches
// (propertytests/doc.go, ROBUSTNESS.md).
package testingknobs
