package buildinfo

import (
	"regexp"
	"runtime/debug"

	"github.com/lockstep-go/lockstep"
)

// pseudoRevision is the commit prefix at the end of a pseudo-version
// (v0.1.1-0.20260501120000-abcdef123456).
var pseudoRevision = regexp.MustCompile(`[-.]\d{14}-([0-9a-f]{12})(\+.*)?$`)

// Describe returns the version of module (the one holding a command) and
// the commit the command was built from, as the build information
// records them. The version is the module's: its tag when built from a
// module version (go install, or go build in a module that requires it) or
// from a checkout at a tag, a pseudo-version between tags, and
// lockstep.Version when the build recorded none ("(devel)"). The commit is
// vcs.revision when the command was built in its own checkout (with
// "(modified)" for uncommitted changes), the commit a pseudo-version names,
// and otherwise not recorded: a build from a module version carries no
// commit, its tag names it.
func Describe(info *debug.BuildInfo, module string) (version, commit string) {
	version = lockstep.Version + " (lockstep.Version)"
	if info == nil {
		return version, "not recorded (no build information)"
	}
	m, own := &info.Main, info.Main.Path == module
	if !own {
		m = nil
		for _, d := range info.Deps {
			if d.Path == module {
				m = d
			}
		}
	}
	if m != nil && m.Replace != nil {
		m = m.Replace
	}
	if m != nil && m.Version != "" && m.Version != "(devel)" {
		version = m.Version
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	switch p := pseudoRevision.FindStringSubmatch(version); {
	case own && rev != "" && modified: // the settings describe the main module's checkout
		return version, rev + " (modified)"
	case own && rev != "":
		return version, rev
	case p != nil:
		return version, p[1]
	case version != lockstep.Version+" (lockstep.Version)":
		return version, "not recorded (a build from the module version " + version + ": its tag names the commit)"
	default:
		return version, "not recorded (built without version control information)"
	}
}
