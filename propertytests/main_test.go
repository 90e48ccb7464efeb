package propertytests

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
)

// defaultSteps is the average number of random-phase actions per check
// unless -rapid.steps (or RAPID_STEPS) says otherwise.
const defaultSteps = "100"

// Depth of the rapid checks of the fleets and of the drain (doc.go, "Depth"):
// quick keeps the package's share of the README's test command small;
// LOCKSTEP_DEEP=1 is CI's depth. -rapid.checks (or RAPID_CHECKS) overrides
// both.
const (
	quickFleetChecks   = 20
	quickDrainChecks   = 20
	quickRolloutChecks = 20
	deepChecks         = 1000
	// deepRolloutChecks: a rollout costs about fifty fleet checks.
	deepRolloutChecks = 50
)

// deep is LOCKSTEP_DEEP=1, read once by TestMain.
var deep bool

// userRapid records which of rapid's flags the user chose, on the command
// line or through rapid's RAPID_* environment variables, as TestMain found
// them before any test ran. Tests set rapid's flags for themselves (and
// restore them), and flag.Set marks a flag as set for the rest of the
// binary: asked later, flag.Visit would take one test's choice for the
// user's, and every test after it would run at the wrong depth (a control
// at rapid's default 100 checks, say). Only TestMain writes it.
var userRapid = map[string]bool{}

func TestMain(m *testing.M) {
	flag.Parse()
	flag.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "rapid.") {
			userRapid[f.Name] = true
		}
	})
	flag.VisitAll(func(f *flag.Flag) {
		if name, ok := strings.CutPrefix(f.Name, "rapid."); ok {
			if _, env := os.LookupEnv("RAPID_" + strings.ToUpper(name)); env {
				userRapid[f.Name] = true
			}
		}
	})
	deep = os.Getenv("LOCKSTEP_DEEP") == "1"
	if !userChose("rapid.steps") {
		_ = flag.Lookup("rapid.steps").Value.Set(defaultSteps)
	}
	os.Exit(m.Run())
}

// userChose reports whether the user chose rapid flag name ("rapid.checks"):
// on the command line, or through its environment variable (RAPID_CHECKS),
// which rapid reads as the flag's default.
func userChose(name string) bool { return userRapid[name] }

// rapidDefault sets rapid flag name to value for one test unless the user
// chose it, and returns the function restoring it.
func rapidDefault(t *testing.T, name, value string) func() {
	if userChose(name) {
		return func() {}
	}
	return setFlag(t, name, value)
}

// rapidChecks sets -rapid.checks for one test to quick, or to deepN under
// LOCKSTEP_DEEP=1, unless the user chose it; it returns the function
// restoring it.
func rapidChecks(t *testing.T, quick, deepN int) func() {
	n := quick
	if deep {
		n = deepN
	}
	return rapidDefault(t, "rapid.checks", strconv.Itoa(n))
}

// setFlag sets a flag for the test and returns a function restoring it.
func setFlag(t *testing.T, name, value string) func() {
	f := flag.Lookup(name)
	old := f.Value.String()
	if err := f.Value.Set(value); err != nil {
		t.Fatal(err)
	}
	return func() { _ = f.Value.Set(old) }
}

// A test's own choice of a rapid flag is undone when it ends and is never
// taken for the user's by a later test: the controls once ran at rapid's
// default depth because the drain's control had set -rapid.checks first.
func TestFlags_ATestsRapidSettingLeavesNoTrace(t *testing.T) {
	f := flag.Lookup("rapid.checks")
	before, chose := f.Value.String(), userChose("rapid.checks")
	rapidDefault(t, "rapid.checks", "7")()
	setFlag(t, "rapid.checks", "7")()
	visited := false
	flag.Visit(func(v *flag.Flag) { visited = visited || v.Name == "rapid.checks" })
	if f.Value.String() != before || userChose("rapid.checks") != chose || (visited && !chose) {
		t.Fatalf("after a test set -rapid.checks: value %s (was %s), user's choice %v (was %v), flag.Visit sees it %v",
			f.Value.String(), before, userChose("rapid.checks"), chose, visited)
	}
}
