package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/zip"
)

// addTag writes the module version that tag names in repo into the proxy
// directory out, and returns it with its zip's size.
func addTag(repo, out, tag string) (module.Version, int64, error) {
	subdir, version := path.Split(tag)
	subdir = strings.TrimSuffix(subdir, "/")
	if !semver.IsValid(version) || semver.Canonical(version) != version || semver.Build(version) != "" {
		return module.Version{}, 0, fmt.Errorf("tag %s: %q is not a canonical semantic version (vX.Y.Z)", tag, version)
	}
	gomod, err := git(repo, "show", tag+":"+path.Join(subdir, "go.mod"))
	if err != nil {
		return module.Version{}, 0, fmt.Errorf("tag %s: no go.mod in %q at the tag: %w", tag, subdir, err)
	}
	modPath := modfile.ModulePath(gomod)
	if modPath == "" {
		return module.Version{}, 0, fmt.Errorf("tag %s: %s/go.mod has no module line", tag, subdir)
	}
	if subdir != "" && !strings.HasSuffix(modPath, "/"+subdir) {
		return module.Version{}, 0, fmt.Errorf("tag %s: module %s does not end in its directory %s, so the go command would not find it by this tag", tag, modPath, subdir)
	}
	m := module.Version{Path: modPath, Version: version}
	if err := module.Check(m.Path, m.Version); err != nil {
		return m, 0, err
	}
	when, err := git(repo, "log", "-1", "--format=%cI", tag+"^{commit}")
	if err != nil {
		return m, 0, err
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(when)))
	if err != nil {
		return m, 0, fmt.Errorf("tag %s: commit time %q: %w", tag, when, err)
	}
	dir, err := versionDir(out, m.Path)
	if err != nil {
		return m, 0, err
	}
	base := filepath.Join(dir, version)
	var z bytes.Buffer
	if err := zip.CreateFromVCS(&z, m, repo, tag, subdir); err != nil {
		return m, 0, err
	}
	info, _ := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, t.UTC()})
	for name, data := range map[string][]byte{base + ".info": info, base + ".mod": gomod, base + ".zip": z.Bytes()} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			return m, 0, err
		}
	}
	if err := addToList(filepath.Join(dir, "list"), version); err != nil {
		return m, 0, err
	}
	if _, err := zip.CheckZip(m, base+".zip"); err != nil {
		return m, 0, fmt.Errorf("the zip of %s@%s: %w", m.Path, m.Version, err)
	}
	return m, int64(z.Len()), nil
}

// versionDir creates and returns out/<escaped module path>/@v.
func versionDir(out, modPath string) (string, error) {
	esc, err := module.EscapePath(modPath)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(out, filepath.FromSlash(esc), "@v")
	return dir, os.MkdirAll(dir, 0o755)
}

// addToList adds version to the @v/list file, which names each version
// once, in semantic version order.
func addToList(list, version string) error {
	b, err := os.ReadFile(list)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	versions := []string{version}
	for _, v := range strings.Fields(string(b)) {
		if v != version {
			versions = append(versions, v)
		}
	}
	semver.Sort(versions)
	return os.WriteFile(list, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}

func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
