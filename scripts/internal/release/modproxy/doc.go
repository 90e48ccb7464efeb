// Command modproxy lays out a Go module proxy on disk from the tags of a git
// repository, for the release stage of CI (.ci/run release): the go command
// then fetches the repository's modules by version with
// GOPROXY=file://DIR, as a user fetches them from a module proxy.
//
//	modproxy -repo CHECKOUT -out DIR TAG...
//
// A tag is a module's version, vX.Y.Z for the module at the repository's
// root and SUBDIR/vX.Y.Z for the module in SUBDIR (lockd/v0.1.0), as the go
// command reads a repository's tags. For each, DIR gets the files of the
// GOPROXY protocol under the module's escaped path: @v/list (the versions,
// one a line), @v/VERSION.info (the version and its commit's time),
// @v/VERSION.mod (go.mod at the tag) and @v/VERSION.zip (the module's files
// at the tag, made by golang.org/x/mod/zip from git archive, so nested
// modules and ignored files are left out as the go command leaves them).
package main
