// Package fencetest is the conformance suite every fence.Store must pass: a
// commit applies when its token is at least the stored one and is refused,
// reporting the stored token and writing nothing, when it is below; bad input
// changes nothing; concurrent commits leave the highest token's value.
//
// It runs against model.FenceStore in this package's tests and against a real
// Cassandra (cassandra.FenceStore) under the integration build tag. So it
// works on a shared remote table, each case uses keys of its own (named after
// the test plus a random suffix) and never assumes an empty table. It imports
// only package fence, the root package and the standard library.
package fencetest
