// Command rbcheck checks a robustness run's history directory (package
// check): the workers' "*.jsonl" histories and the register's log,
// register-ops.jsonl. It prints the report and exits 1 if it found any
// violation, 2 on bad input.
//
//	rbcheck [--timeout 1m] [--heal-ns N --liveness-bound 30s] [--strict-counter] [--visualize OUT] DIR
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lockstep-go/lockstep/robustness/check"
	"github.com/lockstep-go/lockstep/robustness/history"
	"github.com/lockstep-go/lockstep/robustness/register"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rbcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o check.Options
	fs.DurationVar(&o.Timeout, "timeout", 0, "porcupine's time limit per lock id (0: 1m)")
	fs.Int64Var(&o.HealNS, "heal-ns", 0, "the final heal, ns since the run's epoch (0: no liveness check)")
	fs.DurationVar(&o.LivenessBound, "liveness-bound", 0, "every worker must acquire this soon after the heal (0: 30s)")
	fs.StringVar(&o.VisualizeDir, "visualize", "", "write porcupine's HTML rendering of every rejected lock history to this directory")
	fs.BoolVar(&o.StrictCounter, "strict-counter", false, "lost updates on the unfenced counter are violations")
	opsPath := fs.String("register-ops", "", "the register's log (default DIR/"+history.RegisterFile+")")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rbcheck [flags] DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	dir := fs.Arg(0)
	if *opsPath == "" {
		*opsPath = filepath.Join(dir, history.RegisterFile)
	}
	ops, err := register.Load(*opsPath)
	if err != nil {
		fmt.Fprintf(stderr, "rbcheck: %v (pass --register-ops if the log lives elsewhere)\n", err)
		return 2
	}
	rep, err := check.Run(dir, ops, o)
	if err != nil {
		fmt.Fprintln(stderr, "rbcheck:", err)
		return 2
	}
	fmt.Fprintln(stdout, rep.Summary())
	if len(rep.Violations) > 0 {
		return 1
	}
	return 0
}
