package managertest

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// memEnv runs the suite on one memTable per scenario.
func memEnv(broken string) Env {
	tables := map[lockstep.Store]*memTable{}
	return Env{
		Virtual: true,
		Clients: []int{1, 2, 8, 40},
		NewStore: func(t *testing.T) lockstep.Store {
			s := &struct{ lockstep.Store }{} // a distinct key per scenario; never called
			tables[s] = newMemTable(broken)
			return s
		},
		NewLocker: func(t *testing.T, s lockstep.Store, sep string) lockstep.GroupLocker {
			return &memLocker{m: tables[s], sep: sep}
		},
	}
}

// The suite passes on the reference lock manager.
func TestSuite_Reference(t *testing.T) { Run(t, memEnv(os.Getenv("MANAGERTEST_BROKEN"))) }

// The suite has teeth: on the reference broken on purpose, the scenario
// made for the defect fails. Each broken run is a child test process, as a
// failing Run cannot be observed from inside the same test.
func TestSuite_CatchesDefects(t *testing.T) {
	if os.Getenv("MANAGERTEST_BROKEN") != "" {
		t.Skip("inside a child")
	}
	for _, tc := range []struct{ broken, scenario, want string }{
		{"no-intention", "Directories", "under way"},
		{"no-intention", "ReentrantHierarchy", "Exclusive on dir while something below it is held"},
		// A mask in an intention access taken as its parent in it: the
		// refusal MaskPairs asks for is missing.
		{"mask-intention", "MaskPairs", "a mask in an intention access"},
		// A flat path taken as one name, without intention locks: the
		// refusal Flags asks for is missing.
		{"flat-paths", "Flags", `doc/page:X:flat`},
		// A Lock that only counted says it took something.
		{"reentrant-unreported", "ReentrantReported", "rx again"},
		// Whichever side of the overlap looks first reports it: a reader
		// beside a writer, or a writer beside readers (which side depends
		// on the goroutines' interleaving).
		{"shared-ignores-writers", "CounterWithReaders", `a reader entered beside|a writer entered beside \d+ writers and [1-9]\d* readers`},
	} {
		t.Run(tc.broken+"/"+tc.scenario, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=TestSuite_Reference/"+tc.scenario+"$", "-test.count=1")
			cmd.Env = append(os.Environ(), "MANAGERTEST_BROKEN="+tc.broken)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the suite passed on the reference with %s:\n%s", tc.broken, out)
			require.Regexp(t, tc.want, string(out))
		})
	}
}
