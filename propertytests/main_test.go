package propertytests

import (
	"flag"
	"os"
	"testing"
)

// defaultSteps is the average number of random-phase actions per check
// unless -rapid.steps (or RAPID_STEPS) says otherwise; -short halves it.
const defaultSteps = "100"

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.steps" })
	if _, env := os.LookupEnv("RAPID_STEPS"); !set && !env {
		_ = flag.Set("rapid.steps", defaultSteps)
	}
	os.Exit(m.Run())
}
