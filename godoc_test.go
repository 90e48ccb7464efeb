package lockstep_test

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// maxDocWords is how long `go doc -all` of the packages users read first may
// grow: what a user needs, with the arguments in docs/algorithms.md.
var maxDocWords = map[string]int{"./queuelock": 1500, "./migration": 1500}

// sourceWords are words that point at documents a user does not have.
var sourceWords = regexp.MustCompile(`(?i)\b(seeds?|listings?|lemmas?)\b`)

// TestGoDoc_UserPackagesStandAlone holds the package docs users read first
// to a length a user reads through, naming no source document: the seeds'
// listings and lemmas are restated in docs/algorithms.md.
func TestGoDoc_UserPackagesStandAlone(t *testing.T) {
	for pkg, most := range maxDocWords {
		out, err := exec.Command("go", "doc", "-all", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go doc -all %s: %v\n%s", pkg, err, out)
		}
		if n := len(strings.Fields(string(out))); n > most {
			t.Errorf("go doc -all %s is %d words, more than %d: move arguments and mechanism to docs/", pkg, n, most)
		}
		if m := sourceWords.FindAllString(string(out), -1); len(m) > 0 {
			t.Errorf("go doc -all %s names %q: a user has no seed, listing or lemma; point to docs/algorithms.md", pkg, m)
		}
	}
}
