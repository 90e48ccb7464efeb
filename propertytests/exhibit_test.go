package propertytests

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An exhibit is a kept counterexample of a negative control whose random
// searches miss now and then (LegacyLossUnwatched needs a cut of the legacy
// tables to last a lease window while a long hold works on; AdoptWithoutWitness
// a lapsed giver, then the successor's turn): testdata/controls/<control>.json,
// a script no longer than the control's bound. TestNegative replays it first,
// every run: it must fail by the control's property, or the run fails as a
// stale exhibit (a change to the algorithms or the harness moved the
// schedule; keep a new one). Then at most exhibitSearches searches run (one; the
// control's attempts only when an exhibit is being kept), and what they find
// is logged; a control they all miss is still caught, by its exhibit, and
// says so. So the control's verdict — the property has teeth against this
// defect — does not depend on the luck of the run, and the searches keep
// showing how well the checker finds the defect on its own.
//
// An exhibit is kept (or replaced by a shorter one: the control's searches,
// all its attempts, must find one no longer than the kept one) with
//
//	LOCKSTEP_KEEP_EXHIBIT=1 go test -tags lockstep_bugs ./propertytests -run 'Negative/<control>$' -v

// exhibitPath is where control name's exhibit is kept.
func exhibitPath(name string) string {
	return filepath.Join("testdata", "controls", name+".json")
}

// loadExhibit returns control name's exhibit, or nil if it has none.
func loadExhibit(name string) (script, error) {
	b, err := os.ReadFile(exhibitPath(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var sc script
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, fmt.Errorf("%s: %w", exhibitPath(name), err)
	}
	if len(sc) == 0 {
		return nil, fmt.Errorf("%s: an empty exhibit", exhibitPath(name))
	}
	return sc, nil
}

// checkExhibit replays control c's exhibit, if it has one, and returns it
// with its failure; an error if it is stale (passes, fails by another
// property) or longer than limit.
func checkExhibit(t *testing.T, c control, limit int) (failure, error) {
	sc, err := loadExhibit(c.name)
	if err != nil || sc == nil {
		return failure{}, err
	}
	if len(sc) > limit {
		return failure{}, fmt.Errorf("exhibit %s has %d actions, above the control's bound %d", exhibitPath(c.name), len(sc), limit)
	}
	_, ferr := replay(t, c.fleet, c.v, sc)
	if ferr == nil || !strings.HasPrefix(ferr.Error(), c.want) {
		return failure{}, fmt.Errorf("stale exhibit %s: it should fail by %q, got %v; keep a new one: LOCKSTEP_KEEP_EXHIBIT=1 go test -tags lockstep_bugs ./propertytests -run 'Negative/%s$'",
			exhibitPath(c.name), c.want, ferr, c.name)
	}
	return failure{sc, ferr}, nil
}

// keepExhibit writes sc as control c's exhibit, one action per line.
func keepExhibit(t *testing.T, c control, sc script) {
	t.Helper()
	var b strings.Builder
	writeScript(&b, sc, "")
	b.WriteString("\n")
	if err := os.MkdirAll(filepath.Dir(exhibitPath(c.name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exhibitPath(c.name), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("kept as %s (%d actions)", exhibitPath(c.name), len(sc))
}
