//go:build lockstep_bugs

package propertytests

// The controls of the two-round-trip handoff (docs/algorithms.md, section
// 4.12; handoff_test.go), run by the plain negative-control command
// (go test -tags lockstep_bugs ./propertytests -run 'Negative|Regressions').
func init() {
	controls = append(controls,
		// The woken waiter counts its lease from its confirmation read,
		// after the handoff's write, instead of from its queue-cell write
		// the releaser read: with the wake-up late and its first renewal not
		// yet answered, it works beyond a lease window of the handoff
		// (property H1).
		control{name: "HandoffFromRead", fleet: fleetNamed("new/handoff"),
			v: variant{bugs: switches{HandoffFromRead: true}, noFencing: true, weights: &slowWeights}, want: "handoff:",
			attempts: 8},
		// The releaser names the last waiter its claim saw instead of the
		// next: the waiters in between are bypassed again and again.
		control{name: "HandoffNamesLast", fleet: fleetNamed("new/handoff"),
			v: variant{bugs: switches{HandoffNamesLast: true}, noLeaseCheck: true}, want: "liveness:"},
	)
}
