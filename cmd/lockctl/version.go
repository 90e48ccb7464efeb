package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/buildinfo"
)

const libraryModule = "github.com/lockstep-go/lockstep"

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "print lockctl's version and commit, lockstep's release, the library it was built with, and the Go version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			info, _ := debug.ReadBuildInfo()
			writeVersion(a.stdout, info)
			return nil
		},
	}
}

// writeVersion prints lockctl's version and the commit it was built from
// (buildinfo.Describe), the release of the library lockctl was built with
// (lockstep.Version, which CHANGELOG.md's newest entry matches), the
// library module's version in the build, and the Go version and platform.
func writeVersion(w io.Writer, info *debug.BuildInfo) {
	v, commit := buildinfo.Describe(info, lockctlModule)
	fmt.Fprintf(w, "lockctl %s commit %s\n", v, commit)
	fmt.Fprintf(w, "lockstep %s\n", lockstep.Version)
	if info == nil {
		fmt.Fprintf(w, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return
	}
	for _, d := range info.Deps {
		if d.Path != libraryModule {
			continue
		}
		if r := d.Replace; r != nil && (r.Version == "" || r.Version == "(devel)") {
			fmt.Fprintf(w, "library %s from %s (a local replacement)\n", d.Path, r.Path)
		} else if r != nil {
			fmt.Fprintf(w, "library %s %s (replaced by %s %s)\n", d.Path, d.Version, r.Path, r.Version)
		} else {
			fmt.Fprintf(w, "library %s %s\n", d.Path, d.Version)
		}
	}
	fmt.Fprintf(w, "%s %s/%s\n", info.GoVersion, runtime.GOOS, runtime.GOARCH)
}
