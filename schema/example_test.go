package schema_test

import (
	"fmt"
	"strings"

	"github.com/lockstep-go/lockstep/schema"
)

// Statements returns the CQL that Apply (and `lockctl schema apply`) runs,
// for review before a change window; it needs no cluster.
func ExampleStatements() {
	stmts, err := schema.Statements("locks", schema.WithCreateKeyspace(map[string]string{
		"class": "NetworkTopologyStrategy", "dc1": "3",
	}))
	if err != nil {
		panic(err)
	}
	for _, s := range stmts {
		fmt.Println(strings.Join(strings.Fields(s)[:6], " "))
	}
	_, err = schema.Statements("Locks")
	fmt.Println(err != nil)
	// Output:
	// CREATE KEYSPACE IF NOT EXISTS locks
	// CREATE TABLE IF NOT EXISTS locks.legacy_main
	// CREATE TABLE IF NOT EXISTS locks.legacy_shadow
	// CREATE TABLE IF NOT EXISTS locks.queue_lock
	// CREATE TABLE IF NOT EXISTS locks.global_time
	// CREATE TABLE IF NOT EXISTS locks.fleet_census
	// CREATE TABLE IF NOT EXISTS locks.fleet_phase
	// CREATE TABLE IF NOT EXISTS locks.fenced_resource
	// CREATE TABLE IF NOT EXISTS locks.lock_waits
	// true
}
