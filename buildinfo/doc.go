// Package buildinfo says which version of a lockstep command is running
// and which commit it was built from, read from the build information Go
// records in the binary (runtime/debug.ReadBuildInfo): `lockctl version`
// and `lockd --version` print it. It imports nothing of the module but the
// root package, for its Version.
package buildinfo
