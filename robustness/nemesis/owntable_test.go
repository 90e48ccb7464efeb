package nemesis

import "testing"

// A cluster's tables are its prefix and "_": the cluster at IP offset 10
// does not take the tables of the one at 100 for its own, nor the other
// way round.
func TestOwnTable_PrefixAndUnderscore(t *testing.T) {
	for _, tc := range []struct {
		prefix, table string
		want          bool
	}{
		{"lockstep_robust100", "lockstep_robust100_part", true},
		{"lockstep_robust100", "lockstep_robust100_dcpart", true},
		{"lockstep_robust10", "lockstep_robust100_part", false},
		{"lockstep_robust100", "lockstep_robust10_part", false},
		{"lockstep_robust60", "lockstep_robust60", false},
		{"lockstep_robust60", "other", false},
	} {
		if got := ownTable(tc.prefix, tc.table); got != tc.want {
			t.Errorf("ownTable(%q, %q) = %v, want %v", tc.prefix, tc.table, got, tc.want)
		}
	}
}
