package lockstep_test

import (
	"bufio"
	"go/build/constraint"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Test-only behaviour enters through TestingKnobs alone: no production Go
// file of the repository, in the library or any nested module, carries a
// build constraint, so no build of a user's (or of the robustness worker,
// lockd, lockctl) differs from the one the tests judged. Test files may
// (the negative controls' lockstep_bugs build, the integration tag).
func TestNoProductionFileHasABuildConstraint(t *testing.T) {
	found, err := constrainedProductionFiles(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s has a build constraint: a production file compiled only under a tag; give the package a TestingKnobs field in its options instead", f)
	}
}

// The check has teeth: a production file with a //go:build line (or the
// older // +build) is reported, a test file with one is not.
func TestNoProductionFileHasABuildConstraint_FindsOne(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/knobs_on.go", "// Copyright\n\n//go:build lockstep_bugs\n\npackage a\n")
	write("a/old.go", "// +build bugs\n\npackage a\n")
	write("a/plain.go", "package a\n\n//go:build nothing: after the package clause it is no constraint\n")
	write("a/a_test.go", "//go:build lockstep_bugs\n\npackage a\n")
	write("a/testdata/x.go", "//go:build ignore\n\npackage x\n")
	found, err := constrainedProductionFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a/knobs_on.go"), filepath.Join(dir, "a/old.go")}
	if strings.Join(found, ",") != strings.Join(want, ",") {
		t.Fatalf("found %v, want %v", found, want)
	}
}

// constrainedProductionFiles returns the non-test Go files under root
// (testdata and hidden directories skipped) with a build constraint in
// their header, before the package clause.
func constrainedProductionFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		has, err := hasBuildConstraint(path)
		if has {
			out = append(out, path)
		}
		return err
	})
	return out, err
}

// hasBuildConstraint reports whether the Go file at path has a //go:build
// or // +build line before its package clause.
func hasBuildConstraint(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "package ") {
			return false, nil
		}
		if constraint.IsGoBuild(line) || constraint.IsPlusBuild(line) {
			return true, nil
		}
	}
	return false, sc.Err()
}
