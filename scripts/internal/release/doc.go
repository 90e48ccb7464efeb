// Package release holds the tests of scripts/release, the release script of
// the repository: each refusal run one by one in a small repository of
// three modules, each shown to change nothing, and a release that tags
// every module. Its command modproxy lays out a module proxy on disk from a
// release's tags, for CI's release stage (scripts/release-check).
//
// This directory is a module of its own (golang.org/x/mod is no dependency
// of the library) and one of the repository's tools: scripts/release does
// not tag it.
package release
