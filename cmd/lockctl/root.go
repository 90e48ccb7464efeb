package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

const rootLong = `lockctl is the operator's tool for lockstep on Cassandra: it creates the
schema, shows what the store holds for a lock, shows the fleet census and the
migration phase, moves the phase, runs a command while holding a lock, and, as
a last resort, deletes a dead owner's cells.

Every connection flag may also come from its LOCKSTEP_* environment variable
(the flag wins). The password is never a flag: set LOCKSTEP_PASSWORD or name
a file with --password-file.

Exit codes: 0 success, 1 failure, 2 usage error, 3 cluster unreachable or
login/TLS refused, 4 phase move, release or lock refused, 5 lock lost while
its command ran. lock otherwise exits with its command's status.`

// rootCommand builds the command tree of one invocation, its global flags
// bound to a fresh options value.
func (a *app) rootCommand() *cobra.Command {
	o := defaultOptions()
	root := &cobra.Command{
		Use:           "lockctl",
		Short:         "operate lockstep's locks, census and migration phase on Cassandra",
		Long:          rootLong,
		Example:       "  lockctl --hosts 10.0.0.1,10.0.0.2 --local-dc dc1 --tls-ca ca.pem --username ops fleet\n  lockctl inspect --output json invoice/42\n  lockctl phase set --drain 2m combined\n  lockctl lock --wait 0 nightly/report -- ./report.sh",
		SilenceErrors: true, // run reports them, with the exit code
		SilenceUsage:  true,
		RunE: func(*cobra.Command, []string) error {
			return usageError(errors.New("missing command"))
		},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	o.register(root.PersistentFlags())
	root.AddCommand(
		group("schema", "create the tables or print their CQL", a.schemaApplyCommand(o), a.schemaPrintCommand(o)),
		a.inspectCommand(o),
		a.fleetCommand(o),
		group("phase", "show or move the fleet's migration phase", a.phaseGetCommand(o), a.phaseSetCommand(o)),
		a.releaseCommand(o),
		a.lockCommand(o),
		a.sessionsCommand(o),
		a.viewCommand(o),
		a.versionCommand(),
	)
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			needSubcommand(c) // completion tcsh: a usage error, not help
		}
	}
	return root
}

// leaf makes c a command that reaches the cluster (or, for schema print,
// could): when run, it fills the flags not given from the environment,
// validates the global options, builds the command from its positional
// arguments (errors there are usage errors, unless marked otherwise) and
// executes it.
func (a *app) leaf(c *cobra.Command, o *options, build func(args []string) (command, error)) *cobra.Command {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if err := o.applyEnv(cmd.Flags(), a.getenv); err != nil {
			return usageError(err)
		}
		if err := o.validate(); err != nil {
			return usageError(err)
		}
		name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
		run, err := build(args)
		if err != nil {
			return usageError(fmt.Errorf("%s: %w", name, err))
		}
		if err := a.exec(cmd.Context(), run, o); err != nil {
			return &exitError{code: exitCode(err), err: withHint(err, o)}
		}
		return nil
	}
	return c
}

// group is a command that only holds subcommands: run bare or with an
// unknown subcommand it is a usage error naming the subcommands (and
// cobra's suggestions for a mistyped one).
func group(use, short string, subs ...*cobra.Command) *cobra.Command {
	g := &cobra.Command{Use: use, Short: short}
	g.AddCommand(subs...)
	needSubcommand(g)
	return g
}

// needSubcommand makes g, a command that only holds subcommands, refuse to
// run bare or with an unknown subcommand.
func needSubcommand(g *cobra.Command) {
	g.Args = cobra.ArbitraryArgs
	g.SuggestionsMinimumDistance = 2
	g.RunE = func(cmd *cobra.Command, args []string) error {
		var paths []string
		for _, s := range cmd.Commands() {
			if s.IsAvailableCommand() {
				paths = append(paths, cmd.Name()+" "+s.Name())
			}
		}
		need := fmt.Sprintf("%s needs a subcommand: %s", cmd.Name(), strings.Join(paths, " or "))
		if len(args) == 0 {
			return usageError(errors.New(need))
		}
		msg := fmt.Sprintf("unknown command %q for %q; %s", args[0], cmd.CommandPath(), need)
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return usageError(errors.New(msg))
	}
}
