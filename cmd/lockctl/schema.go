package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstep-go/lockstep/schema"
)

func (a *app) schemaApplyCommand(o *options) *cobra.Command {
	c := &cobra.Command{Use: "apply [--replication K=V,...] [--legacy-ttl D [--max-server-skew D]]", Short: "create every table (and the keyspace, given --replication); idempotent"}
	return a.bindSchema(c, o, func(s schemaCmd) command { return schemaApply(s) })
}

func (a *app) schemaPrintCommand(o *options) *cobra.Command {
	c := &cobra.Command{Use: "print [--replication K=V,...] [--legacy-ttl D [--max-server-skew D]]", Short: "print the CQL statements schema apply runs (needs no cluster; text only)"}
	return a.bindSchema(c, o, func(s schemaCmd) command { return schemaPrint(s) })
}

// schemaCmd is what both schema commands take: the replication of the
// keyspace to create, or nil to leave the keyspace alone, and the longest
// TTL of the fleet's legacy writers, or 0 for the default gc_grace of the
// legacy tables (schema.WithLegacyTTL).
type schemaCmd struct {
	replication   map[string]string
	legacyTTL     time.Duration
	maxServerSkew time.Duration
}

// bindSchema registers --replication, --legacy-ttl and --max-server-skew on
// c and builds the command with mk.
func (a *app) bindSchema(c *cobra.Command, o *options, mk func(schemaCmd) command) *cobra.Command {
	repl := c.Flags().String("replication", "", "create the keyspace with this replication, e.g. class=NetworkTopologyStrategy,dc1=3")
	legacyTTL := c.Flags().Duration("legacy-ttl", 0, "derive the legacy tables' gc_grace_seconds from this, the longest TTL any legacy writer of the fleet uses (default: gc_grace 3h)")
	skew := c.Flags().Duration("max-server-skew", time.Second, "with --legacy-ttl: how far apart the Cassandra servers' clocks can be")
	return a.leaf(c, o, func(args []string) (command, error) {
		if err := noArgs(args); err != nil {
			return nil, err
		}
		s := schemaCmd{legacyTTL: *legacyTTL, maxServerSkew: *skew}
		if *repl != "" {
			m, err := parseReplication(*repl)
			if err != nil {
				return nil, err
			}
			s.replication = m
		}
		if _, err := s.statements(o); err != nil {
			return nil, err // an invalid replication map or legacy TTL
		}
		return mk(s), nil
	})
}

// parseReplication parses "K=V,K=V" into a replication map; package schema
// validates its content.
func parseReplication(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range splitList(s) {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--replication: %q is not K=V", kv)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("--replication: %q given twice", k)
		}
		m[k] = v
	}
	return m, nil
}

func (c schemaCmd) options(o *options) []schema.Option {
	opts := []schema.Option{schema.WithTables(o.tables)}
	if c.replication != nil {
		opts = append(opts, schema.WithCreateKeyspace(c.replication))
	}
	if c.legacyTTL != 0 {
		opts = append(opts, schema.WithLegacyTTL(c.legacyTTL, c.maxServerSkew))
	}
	return opts
}

// statements renders the statements, which also validates the replication.
func (c schemaCmd) statements(o *options) ([]string, error) {
	return schema.Statements(o.Keyspace, c.options(o)...)
}

type schemaPrint schemaCmd

func (c schemaPrint) run(_ context.Context, a *app, o *options) error {
	stmts, err := schemaCmd(c).statements(o)
	if err != nil {
		return err
	}
	for _, s := range stmts {
		fmt.Fprintf(a.stdout, "%s;\n\n", s)
	}
	return nil
}

type schemaApply schemaCmd

func (c schemaApply) run(ctx context.Context, a *app, o *options) error {
	cn, err := a.connect(ctx, o)
	if err != nil {
		return err
	}
	defer cn.Close()
	if cn.session == nil {
		return errors.New("schema apply needs a CQL session")
	}
	if err := schema.Apply(ctx, cn.session, o.Keyspace, schemaCmd(c).options(o)...); err != nil {
		if c.replication == nil && missingKeyspace(err) {
			return &hinted{err: err, hint: fmt.Sprintf("schema apply creates the keyspace only when told its replication: "+
				"add --replication, e.g. class=NetworkTopologyStrategy,dc1=3 (or class=SimpleStrategy,replication_factor=1 on one node), "+
				"or create keyspace %s first; check --keyspace if it should exist", o.Keyspace)}
		}
		return err
	}
	t := o.tableNames()
	what := "tables"
	if c.replication != nil {
		what = "keyspace and tables"
	}
	fmt.Fprintf(a.stdout, "schema applied (%s, schema agreement reached): keyspace %s: %s\n", what, o.Keyspace,
		strings.Join([]string{t.LegacyMain, t.LegacyShadow, t.QueueLock, t.GlobalTime, t.FleetCensus, t.FleetPhase, t.FencedResource, t.LockWaits}, ", "))
	return nil
}
