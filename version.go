package lockstep

// Version is the release of this module that the source tree is, or is
// heading to, in semantic versioning: CHANGELOG.md lists every release and
// what changed, and says what a v0 version promises. A "-dev" suffix marks a
// tree between releases. A binary built from a tagged module version also
// reports that tag through its build information; lockctl version and
// lockd --version print both.
const Version = "0.1.0-dev"
