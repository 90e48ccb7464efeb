package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	fs := flag.NewFlagSet("lockdpeer", flag.ContinueOnError)
	job := fs.String("worker", "", "the JSON worker job (see the package comment)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if *job == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "lockdpeer: usage: lockdpeer -worker JOB (lockbench runs it)")
		os.Exit(2)
	}
	if err := runWorker(*job, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "lockdpeer:", err)
		os.Exit(2)
	}
}
