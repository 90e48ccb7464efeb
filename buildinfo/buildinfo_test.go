package buildinfo_test

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/buildinfo"
)

// The version and the commit for each way a command is built.
func TestDescribe_TheTaggedVersionAndTheCommit(t *testing.T) {
	const module = "github.com/lockstep-go/lockstep/cmd/lockctl"
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	dev := lockstep.Version + " (lockstep.Version)"
	for _, tc := range []struct {
		name          string
		info          *debug.BuildInfo
		version, want string
	}{
		{"no build information", nil, dev, "not recorded (no build information)"},
		{"a checkout without a tag", &debug.BuildInfo{Main: debug.Module{Path: module, Version: "(devel)"}, Settings: vcs("false")}, dev, rev},
		{"a checkout with changes", &debug.BuildInfo{Main: debug.Module{Path: module, Version: "(devel)"}, Settings: vcs("true")}, dev, rev + " (modified)"},
		{"a checkout at its tag", &debug.BuildInfo{Main: debug.Module{Path: module, Version: "v0.1.0"}, Settings: vcs("false")}, "v0.1.0", rev},
		{"a checkout without version control information", &debug.BuildInfo{Main: debug.Module{Path: module, Version: "(devel)"}}, dev,
			"not recorded (built without version control information)"},
		{"go install of a module version", &debug.BuildInfo{Main: debug.Module{Path: module, Version: "v0.1.0"}}, "v0.1.0",
			"not recorded (a build from the module version v0.1.0: its tag names the commit)"},
		{"a pseudo-version", &debug.BuildInfo{Main: debug.Module{Path: module, Version: "v0.1.1-0.20260501120000-abcdef123456"}},
			"v0.1.1-0.20260501120000-abcdef123456", "abcdef123456"},
		{"a dependency of another module, in that module's checkout", &debug.BuildInfo{Main: debug.Module{Path: "example.com/ops", Version: "(devel)"},
			Deps: []*debug.Module{{Path: module, Version: "v0.1.0"}}, Settings: vcs("false")}, "v0.1.0",
			"not recorded (a build from the module version v0.1.0: its tag names the commit)"},
	} {
		v, commit := buildinfo.Describe(tc.info, module)
		assert.Equal(t, tc.version, v, tc.name)
		assert.Equal(t, tc.want, commit, tc.name)
	}
}
