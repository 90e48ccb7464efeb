package lockd_test

import (
	"os"
	"os/exec"
	"testing"
)

// TestGeneratedCodeIsCurrent regenerates the Go and Python code of the proto
// file with the pinned generators (scripts/generate --check) and fails on
// any difference from what is committed. It needs the venv that bundles
// protoc (lockd/scripts/venv makes it, from PyPI); without it the test
// skips, saying so. CI runs lockd/scripts/generate --check directly, which
// makes the venv itself.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	if _, err := os.Stat(".build/venv/.requirements"); err != nil {
		t.Skip("generators missing (no lockd/.build/venv): run lockd/scripts/generate --check, which installs them")
	}
	if testing.Short() {
		t.Skip("-short: regenerating builds the Go plugins")
	}
	out, err := exec.Command("scripts/generate", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/generate --check: %v\n%s", err, out)
	}
}
