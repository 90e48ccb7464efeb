package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/lockstep-go/lockstep/schema"
)

func main() {
	keyspace := flag.String("keyspace", "", "keyspace of the tables (required)")
	rf := flag.Int("rf", 0, "if positive, create the keyspace with SimpleStrategy and this replication factor")
	dcs := flag.String("dcs", "", "if set (dc=factor,...), create the keyspace with NetworkTopologyStrategy and these factors")
	flag.Parse()
	var opts []schema.Option
	switch {
	case *dcs != "":
		repl := map[string]string{"class": "NetworkTopologyStrategy"}
		for _, kv := range strings.Split(*dcs, ",") {
			dc, f, ok := strings.Cut(kv, "=")
			if !ok {
				fmt.Fprintf(os.Stderr, "cqlprint: -dcs %q: want dc=factor,... (e.g. dc1=2,dc2=1)\n", *dcs)
				os.Exit(2)
			}
			repl[dc] = f
		}
		opts = append(opts, schema.WithCreateKeyspace(repl))
	case *rf > 0:
		opts = append(opts, schema.WithCreateKeyspace(map[string]string{
			"class": "SimpleStrategy", "replication_factor": strconv.Itoa(*rf),
		}))
	}
	stmts, err := schema.Statements(*keyspace, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cqlprint:", err)
		os.Exit(2)
	}
	for _, s := range stmts {
		// One statement per line: the templates span lines only for
		// readability (no literal does), and CQL reads a newline outside a
		// literal as a space.
		fmt.Println(strings.ReplaceAll(s, "\n", " "))
	}
}
