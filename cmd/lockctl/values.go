package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/schema"
)

// The flag value types (pflag.Value) of the global flags, and the checks of
// positional arguments. The connection flags parse as package cassandra's
// ConnectOptions.Set does, so a flag and its variable take the same values.

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// listValue is a comma-separated, non-empty list of hosts.
type listValue struct{ p *[]string }

func (v listValue) String() string {
	if v.p == nil {
		return ""
	}
	return strings.Join(*v.p, ",")
}

func (v listValue) Set(s string) error {
	l, err := cassandra.ParseHosts(s)
	if err != nil {
		return err
	}
	*v.p = l
	return nil
}

func (listValue) Type() string { return "hosts" }

// portValue is a TCP port, 1 to 65535.
type portValue struct{ p *int }

func (v portValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v portValue) Set(s string) error {
	n, err := cassandra.ParsePort(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

func (portValue) Type() string { return "port" }

// consistencyValue is a gocql consistency level by name, e.g. QUORUM. Any
// level parses; options.validate refuses those the store refuses
// (LOCAL_QUORUM: the fleet's locks and state are global).
type consistencyValue struct{ p *gocql.Consistency }

func (v consistencyValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v consistencyValue) Set(s string) error {
	c, err := cassandra.ParseConsistency(s)
	if err != nil {
		return err
	}
	*v.p = c
	return nil
}

func (consistencyValue) Type() string { return "level" }

// outputValue is text or json.
type outputValue struct{ p *string }

func (v outputValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v outputValue) Set(s string) error {
	switch s = strings.ToLower(strings.TrimSpace(s)); s {
	case "text", "json":
		*v.p = s
		return nil
	}
	return fmt.Errorf("unknown output %q (want text or json)", s)
}

func (outputValue) Type() string { return "text|json" }

// tablesValue sets one table name per use: K=NAME, K being the table's
// default name.
type tablesValue struct{ p *schema.Tables }

func (v tablesValue) String() string { return "" }

func (tablesValue) Type() string { return "K=NAME" }

func (v tablesValue) Set(s string) error {
	kind, name, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("%q: want K=NAME, e.g. legacy_main=old_locks", s)
	}
	d := schema.DefaultTables()
	fields := map[string]*string{
		d.LegacyMain: &v.p.LegacyMain, d.LegacyShadow: &v.p.LegacyShadow, d.QueueLock: &v.p.QueueLock,
		d.GlobalTime: &v.p.GlobalTime, d.FleetCensus: &v.p.FleetCensus, d.FleetPhase: &v.p.FleetPhase,
		d.FencedResource: &v.p.FencedResource, d.LockWaits: &v.p.LockWaits,
	}
	f, ok := fields[kind]
	if !ok {
		kinds := make([]string, 0, len(fields))
		for k := range fields {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		return fmt.Errorf("unknown table %q (want one of %s)", kind, strings.Join(kinds, ", "))
	}
	*f = name
	return nil
}

// lockID returns the single positional argument, a valid lock id.
func lockID(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", errors.New("missing lock id")
	case 1:
	default:
		return "", fmt.Errorf("want one lock id, got %d arguments: %q", len(args), args)
	}
	if err := lockstep.ValidateID(args[0]); err != nil {
		return "", err
	}
	return args[0], nil
}

// noArgs refuses positional arguments.
func noArgs(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected arguments %q", args)
	}
	return nil
}
