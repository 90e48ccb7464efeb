package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

func main() {
	fs := flag.NewFlagSet("etcdpeer", flag.ContinueOnError)
	job := fs.String("worker", "", "the JSON worker job (see the package comment)")
	probe := fs.String("watch-delay", "", "time a watch's DELETE event from revision rev and rev+1 against these etcd endpoints (comma-separated), print, exit")
	rounds := fs.Int("rounds", watchDelayRounds, "-watch-delay: deletions to time")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if (*job == "") == (*probe == "") || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "etcdpeer: usage: etcdpeer -worker JOB (lockbench runs it), or etcdpeer -watch-delay ENDPOINTS [-rounds N]")
		os.Exit(2)
	}
	if *probe != "" {
		if *rounds < 1 {
			fmt.Fprintf(os.Stderr, "etcdpeer: -rounds must be at least 1, got %d\n", *rounds)
			os.Exit(2)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(*rounds)*time.Second+30*time.Second)
		defer cancel()
		prefix := fmt.Sprintf("%swatch-delay/%d/", etcdPrefix, time.Now().UnixNano())
		d, err := probeWatchDelay(ctx, strings.Split(*probe, ","), prefix, *rounds)
		if err != nil {
			fmt.Fprintln(os.Stderr, "etcdpeer:", err)
			os.Exit(1)
		}
		printWatchDelays(os.Stdout, d)
		return
	}
	if err := runWorker(*job, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "etcdpeer:", err)
		os.Exit(2)
	}
}
