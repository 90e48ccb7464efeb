package securetest

import (
	"fmt"

	"github.com/lockstep-go/lockstep/schema"
)

// Grant is one permission on one table of the lock keyspace.
type Grant struct {
	Permission string // SELECT or MODIFY
	Table      string
}

// CQL returns the GRANT statement giving g to role on keyspace ks.
func (g Grant) CQL(ks, role string) string {
	return fmt.Sprintf("GRANT %s ON TABLE %s.%s TO %s", g.Permission, ks, g.Table, role)
}

// RevokeCQL returns the REVOKE statement undoing g.
func (g Grant) RevokeCQL(ks, role string) string {
	return fmt.Sprintf("REVOKE %s ON TABLE %s.%s FROM %s", g.Permission, ks, g.Table, role)
}

// CreateRoleCQL returns the statement creating a login role (not a
// superuser) with password. The password must not contain a quote.
func CreateRoleCQL(role, password string) string {
	return fmt.Sprintf("CREATE ROLE %s WITH LOGIN = true AND SUPERUSER = false AND PASSWORD = '%s'", role, password)
}

// AdminGrantCQL is the schema admin's one permission: it creates the
// keyspace and its tables (schema apply), and Cassandra gives the creator of
// a keyspace or table every permission on it. Where a DBA creates the
// keyspace, GRANT CREATE ON KEYSPACE <ks> is enough instead.
func AdminGrantCQL(role string) string {
	return "GRANT CREATE ON ALL KEYSPACES TO " + role
}

// AppGrants is what an application taking locks through migration.Locker
// needs, in every mode: SELECT and MODIFY on the tables it reads and writes
// (the lock tables, its census heartbeat, the global time cell and the
// fenced resources), and only SELECT on the phase, which it reads and never
// writes. A fleet without the global clock or fencing can leave out the
// global_time and fenced_resource lines.
func AppGrants(t schema.Tables) []Grant {
	var g []Grant
	for _, table := range []string{t.QueueLock, t.LegacyMain, t.LegacyShadow, t.FleetCensus, t.GlobalTime, t.FencedResource, t.LockWaits} {
		g = append(g, Grant{"SELECT", table}, Grant{"MODIFY", table})
	}
	return append(g, Grant{"SELECT", t.FleetPhase})
}

// OperatorGrants is what lockctl needs for inspect, fleet and phase get
// (SELECT on the lock tables, the census and the phase), phase set (MODIFY on
// the phase) and release --force (MODIFY on the lock tables). A read-only
// operator omits the MODIFY lines.
func OperatorGrants(t schema.Tables) []Grant {
	var g []Grant
	for _, table := range []string{t.QueueLock, t.LegacyMain, t.LegacyShadow, t.FleetCensus, t.FleetPhase} {
		g = append(g, Grant{"SELECT", table})
	}
	for _, table := range []string{t.FleetPhase, t.QueueLock, t.LegacyMain, t.LegacyShadow} {
		g = append(g, Grant{"MODIFY", table})
	}
	return g
}
