package managertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// firstHold is how long the first client of an ordered round stays inside
// after the second was let go: the second's acquisition must wait it out.
const firstHold = 20 * time.Millisecond

// fileSystem models the directories of seed scenario 2 in memory. Its
// methods are called inside the critical sections and return an error on
// any breach of integrity. mu only makes each step atomic; the locks under
// test must do the exclusion.
type fileSystem struct {
	mu       sync.Mutex
	dirs     map[string]bool   // the directories that exist
	files    map[string]string // file path → its directory
	creating map[string]int    // directory → creates under way in it
	deleting map[string]bool   // directories whose delete is under way
}

// newFileSystem makes d1, d1/d2, … d1/…/dDepth and returns it with their
// paths, top first.
func newFileSystem(depth int) (*fileSystem, []string) {
	fs := &fileSystem{dirs: map[string]bool{}, files: map[string]string{}, creating: map[string]int{}, deleting: map[string]bool{}}
	paths := make([]string, depth)
	for i := range depth {
		paths[i] = fmt.Sprintf("d%d", i+1)
		if i > 0 {
			paths[i] = paths[i-1] + "/" + paths[i]
		}
		fs.dirs[paths[i]] = true
	}
	return fs, paths
}

// within reports whether path is dir or below it.
func within(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// beginCreate starts creating a file in dir; ok is false when dir no longer
// exists (the create is refused, as a file system would).
func (fs *fileSystem) beginCreate(dir string) (ok bool, err error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for d := range fs.deleting {
		if within(dir, d) {
			return false, fmt.Errorf("a create in %s began while %s was being deleted", dir, d)
		}
	}
	if !fs.dirs[dir] {
		return false, nil
	}
	fs.creating[dir]++
	return true, nil
}

// endCreate finishes the create begun in dir: the file appears.
func (fs *fileSystem) endCreate(dir string) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.creating[dir]--
	if !fs.dirs[dir] {
		return fmt.Errorf("a file was created in %s, which was deleted while the create was under way", dir)
	}
	fs.files[dir+"/file"] = dir
	return nil
}

// beginDelete starts deleting dir; ok is false when it no longer exists.
func (fs *fileSystem) beginDelete(dir string) (ok bool, err error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for d, n := range fs.creating {
		if n > 0 && within(d, dir) {
			return false, fmt.Errorf("the delete of %s began while a create in %s was under way", dir, d)
		}
	}
	if !fs.dirs[dir] {
		return false, nil
	}
	fs.deleting[dir] = true
	return true, nil
}

// endDelete removes dir with every directory and file below it.
func (fs *fileSystem) endDelete(dir string) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	delete(fs.deleting, dir)
	for d, n := range fs.creating {
		if n > 0 && within(d, dir) {
			return fmt.Errorf("%s was deleted while a create in %s was under way", dir, d)
		}
	}
	for d := range fs.dirs {
		if within(d, dir) {
			delete(fs.dirs, d)
		}
	}
	for f := range fs.files {
		if within(f, dir) {
			delete(fs.files, f)
		}
	}
	return nil
}

// check returns an error if a file lies in a directory that does not exist.
func (fs *fileSystem) check() error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for f, d := range fs.files {
		if !fs.dirs[d] {
			return fmt.Errorf("file %s lies in the deleted directory %s", f, d)
		}
	}
	return nil
}

// create is client 1's action: lock the bottom directory exclusively (with
// Separator "/", intention locks on its ancestors), create a file in it.
// entered is closed once it is inside (nil: not wanted); it stays hold
// longer before finishing. created reports whether the file was made.
func create(ctx context.Context, l lockstep.GroupLocker, fs *fileSystem, dir string, entered chan<- struct{}, hold time.Duration) (created bool, err error) {
	h, err := l.Lock(ctx, dir)
	if err != nil {
		if entered != nil {
			close(entered) // let the test go on to its report
		}
		return false, fmt.Errorf("create in %s: lock: %w", dir, err)
	}
	defer func() {
		if uerr := h.Unlock(ctx); uerr != nil && err == nil {
			err = fmt.Errorf("create in %s: unlock: %w", dir, uerr)
		}
	}()
	ok, err := fs.beginCreate(dir)
	if entered != nil {
		close(entered)
	}
	if err != nil || !ok {
		return false, err
	}
	time.Sleep(pause + hold)
	return true, fs.endCreate(dir)
}

// remove is client 2's action: lock directory dir exclusively and delete it
// with everything below it.
func remove(ctx context.Context, l lockstep.GroupLocker, fs *fileSystem, dir string, entered chan<- struct{}, hold time.Duration) (deleted bool, err error) {
	h, err := l.Lock(ctx, dir)
	if err != nil {
		if entered != nil {
			close(entered) // let the test go on to its report
		}
		return false, fmt.Errorf("delete %s: lock: %w", dir, err)
	}
	defer func() {
		if uerr := h.Unlock(ctx); uerr != nil && err == nil {
			err = fmt.Errorf("delete %s: unlock: %w", dir, uerr)
		}
	}()
	ok, err := fs.beginDelete(dir)
	if entered != nil {
		close(entered)
	}
	if err != nil || !ok {
		return false, err
	}
	time.Sleep(pause + hold)
	return true, fs.endDelete(dir)
}

// directories is seed scenario 2: for every depth and every level, a create
// at the bottom against a delete at that level, create first, delete first
// and both at once, each on a fresh file system (and a fresh store).
func directories(env Env) []testCase {
	var cs []testCase
	for _, depth := range env.depths() {
		for level := 1; level <= depth; level++ {
			for _, order := range []string{"create-first", "delete-first", "together"} {
				cs = append(cs, testCase{fmt.Sprintf("depth=%d/level=%d/%s", depth, level, order), func(t *testing.T, env Env) {
					createAgainstDelete(t, env, depth, level, order)
				}})
			}
		}
	}
	return cs
}

// createAgainstDelete is one round of scenario 2: client 1 creates a file
// in the bottom directory of depth, client 2 deletes the directory at level,
// in the order given.
func createAgainstDelete(t *testing.T, env Env, depth, level int, order string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := env.NewStore(t)
	c1, c2 := newLocker(t, env, s, "/"), newLocker(t, env, s, "/")
	fs, paths := newFileSystem(depth)
	bottom, target := paths[depth-1], paths[level-1]
	var (
		wg               sync.WaitGroup
		created, deleted bool
		cerr, derr       error
		first            = make(chan struct{})
	)
	switch order {
	case "create-first":
		wg.Go(func() { created, cerr = create(ctx, c1, fs, bottom, first, firstHold) })
		<-first
		wg.Go(func() { deleted, derr = remove(ctx, c2, fs, target, nil, 0) })
	case "delete-first":
		wg.Go(func() { deleted, derr = remove(ctx, c2, fs, target, first, firstHold) })
		<-first
		wg.Go(func() { created, cerr = create(ctx, c1, fs, bottom, nil, 0) })
	default:
		wg.Go(func() { created, cerr = create(ctx, c1, fs, bottom, nil, 0) })
		wg.Go(func() { deleted, derr = remove(ctx, c2, fs, target, nil, 0) })
	}
	wg.Wait()
	require.NoError(t, errors.Join(cerr, derr))
	require.NoError(t, fs.check())
	require.True(t, deleted, "the delete of %s", target)
	switch order {
	case "create-first":
		require.True(t, created, "the create, which went first")
	case "delete-first":
		require.False(t, created, "a create in %s after %s was deleted", bottom, target)
	}
	require.Empty(t, fs.files, "files left after %s was deleted", target)
}
