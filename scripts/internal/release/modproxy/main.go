package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("modproxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", ".", "the git checkout whose tags to serve")
	out := fs.String("out", "", "the proxy's directory (GOPROXY=file://DIR); created if missing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("usage: modproxy -repo CHECKOUT -out DIR TAG... (a tag: vX.Y.Z or SUBDIR/vX.Y.Z)")
	}
	for _, tag := range fs.Args() {
		m, size, err := addTag(*repo, *out, tag)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "modproxy: %s@%s from tag %s (zip %d bytes)\n", m.Path, m.Version, tag, size)
	}
	return nil
}
