package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain lets this test binary serve as a lockbench worker: the
// real-backend tests (integration tag) run workers by re-executing the
// running executable with -worker (or -scale-worker), as the command does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "-worker" || os.Args[1] == "-scale-worker") {
		if err := run1(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "lockbench worker:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
