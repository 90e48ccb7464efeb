// Command cqlprint prints the CQL statements of package schema, one per
// line, for tests that create lockstep's tables through a driver other than
// gocql (the nested module cassandraapache, whose test binaries must not link
// package schema and with it github.com/gocql/gocql):
//
//	go run ./schema/internal/cqlprint -keyspace lockstep_it -rf 1
//
// With -rf it includes the CREATE KEYSPACE statement (SimpleStrategy); with
// -dcs dc1=2,dc2=1, a NetworkTopologyStrategy one with those factors.
package main
