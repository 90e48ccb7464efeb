package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/cassandra"
	"github.com/lockstep-go/lockstep/schema"
)

// options are the global flags, shared by every command.
type options struct {
	hosts       []string
	keyspace    string
	consistency gocql.Consistency
	timeout     time.Duration
	tables      schema.Tables // empty fields: default names
}

// defaultOptions returns the defaults, with the hosts from CASSANDRA_HOSTS
// (as getenv reports it) when set.
func defaultOptions(getenv func(string) string) *options {
	o := &options{hosts: []string{"127.0.0.1"}, keyspace: "locks", consistency: gocql.Quorum, timeout: 10 * time.Second}
	if h := splitList(getenv("CASSANDRA_HOSTS")); len(h) > 0 {
		o.hosts = h
	}
	return o
}

// register binds the global flags to o on fs. Every command's flag set
// registers them too, so they may come before or after the command.
func (o *options) register(fs *flag.FlagSet) {
	fs.Var(listValue{&o.hosts}, "hosts", "comma-separated contact points")
	fs.StringVar(&o.keyspace, "keyspace", o.keyspace, "the lock keyspace")
	fs.Var(consistencyValue{&o.consistency}, "consistency", "read and write consistency")
	fs.DurationVar(&o.timeout, "timeout", o.timeout, "connect and per-request timeout")
	fs.Var(tablesValue{&o.tables}, "table", "K=NAME: use table NAME for the table whose default name is K")
}

// validate checks the options before anything connects: a safe keyspace and
// table names (lockstep.ValidateName), a consistency level package cassandra
// accepts, a positive timeout.
func (o *options) validate() error {
	if o.timeout <= 0 {
		return fmt.Errorf("--timeout %v must be positive", o.timeout)
	}
	if _, err := schema.Statements(o.keyspace, schema.WithTables(o.tables)); err != nil {
		return err
	}
	// New only validates; it contacts nothing, so an unconnected session
	// does: the level is refused here rather than after connecting.
	if _, err := cassandra.New(new(gocql.Session), o.keyspace, cassandra.WithConsistency(o.consistency, o.consistency)); err != nil {
		return err
	}
	return nil
}

// tableNames returns o.tables with defaults filled in.
func (o *options) tableNames() schema.Tables {
	t, d := o.tables, schema.DefaultTables()
	for _, f := range []struct {
		v   *string
		def string
	}{
		{&t.LegacyMain, d.LegacyMain}, {&t.LegacyShadow, d.LegacyShadow}, {&t.QueueLock, d.QueueLock},
		{&t.GlobalTime, d.GlobalTime}, {&t.FleetCensus, d.FleetCensus}, {&t.FleetPhase, d.FleetPhase},
		{&t.FencedResource, d.FencedResource},
	} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
	return t
}

// command is a parsed command, ready to run. run returns an error for a
// failure; the caller prints it.
type command interface {
	run(ctx context.Context, a *app, o *options) error
}

// spec describes one command.
type spec struct {
	path    string // e.g. "phase set"
	usage   string // e.g. "phase set [--drain D] <mode>"
	summary string
	// bind registers the command's own flags on fs and returns what builds
	// the command from its positional arguments once the flags are parsed
	// and the global options validated.
	bind func(fs *flag.FlagSet) builder
}

// builder builds a command from its positional arguments and the global
// options. Its errors are usage errors.
type builder func(args []string, o *options) (command, error)

// specs lists the commands in the order the help shows them.
var specs = []*spec{schemaApplySpec, schemaPrintSpec, inspectSpec, fleetSpec, phaseGetSpec, phaseSetSpec, releaseSpec}

// invocation is a parsed command line.
type invocation struct {
	spec *spec
	cmd  command
	opts *options
}

// errHelp is returned by parse when help was asked for.
var errHelp = errors.New("help requested")

// parse parses a command line (without the program name). Every error it
// returns is a usage error.
func parse(args []string) (*invocation, error) {
	o := defaultOptions(os.Getenv)
	top := newFlagSet("lockctl")
	o.register(top)
	if err := top.Parse(args); errors.Is(err, flag.ErrHelp) {
		return &invocation{}, errHelp
	} else if err != nil {
		return nil, flagError(err)
	}
	rest := top.Args()
	if len(rest) == 0 {
		return nil, errors.New("missing command")
	}
	if rest[0] == "help" {
		s, _, _ := lookup(rest[1:])
		return &invocation{spec: s}, errHelp
	}
	s, n, err := lookup(rest)
	if err != nil {
		return nil, err
	}
	fs := newFlagSet(s.path)
	o.register(fs)
	build := s.bind(fs)
	pos, err := parseInterleaved(fs, rest[n:])
	if errors.Is(err, flag.ErrHelp) {
		return &invocation{spec: s}, errHelp
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, flagError(err))
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	cmd, err := build(pos, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	return &invocation{spec: s, cmd: cmd, opts: o}, nil
}

// lookup finds the command args start with and how many words name it.
func lookup(args []string) (*spec, int, error) {
	if len(args) == 0 {
		return nil, 0, errors.New("missing command")
	}
	var group []string
	for _, s := range specs {
		first, second, _ := strings.Cut(s.path, " ")
		switch {
		case second == "" && args[0] == first:
			return s, 1, nil
		case second != "" && args[0] == first:
			if len(args) > 1 && args[1] == second {
				return s, 2, nil
			}
			group = append(group, s.path)
		}
	}
	if len(group) > 0 {
		return nil, 0, fmt.Errorf("%s needs a subcommand: %s", args[0], strings.Join(group, " or "))
	}
	return nil, 0, fmt.Errorf("unknown command %q", args[0])
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by run
	return fs
}

// flagError keeps the flag package's message but drops its "flag provided
// but not defined: -x" wording for the usual one.
func flagError(err error) error {
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
		return fmt.Errorf("unknown flag %s", name)
	}
	return err
}

// parseInterleaved parses flags anywhere among the positional arguments
// (the flag package stops at the first positional one) and returns the
// positional arguments. Everything after "--" is positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
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

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// listValue is a comma-separated, non-empty list flag.
type listValue struct{ p *[]string }

func (v listValue) String() string {
	if v.p == nil {
		return ""
	}
	return strings.Join(*v.p, ",")
}

func (v listValue) Set(s string) error {
	l := splitList(s)
	if len(l) == 0 {
		return errors.New("empty list")
	}
	*v.p = l
	return nil
}

// consistencyValue is a gocql consistency level by name, e.g. LOCAL_QUORUM.
type consistencyValue struct{ p *gocql.Consistency }

func (v consistencyValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v consistencyValue) Set(s string) error {
	c, err := gocql.ParseConsistencyWrapper(strings.ToUpper(strings.TrimSpace(s)))
	if err != nil {
		return fmt.Errorf("unknown consistency level %q", s)
	}
	*v.p = c
	return nil
}

// tablesValue sets one table name per use: K=NAME, K being the table's
// default name.
type tablesValue struct{ p *schema.Tables }

func (v tablesValue) String() string { return "" }

func (v tablesValue) Set(s string) error {
	kind, name, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("%q: want K=NAME, e.g. legacy_main=old_locks", s)
	}
	d := schema.DefaultTables()
	fields := map[string]*string{
		d.LegacyMain: &v.p.LegacyMain, d.LegacyShadow: &v.p.LegacyShadow, d.QueueLock: &v.p.QueueLock,
		d.GlobalTime: &v.p.GlobalTime, d.FleetCensus: &v.p.FleetCensus, d.FleetPhase: &v.p.FleetPhase,
		d.FencedResource: &v.p.FencedResource,
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
