//go:build browser

package lockd_test

// The web view in a real browser: headless Chromium, driven by chromedp,
// against a lockd of the test's own (the fixture, with the view) on the
// embedded model, in phase combined with two more processes in the census.
// Built only with the browser tag (scripts/view-browser-test, CI's lockd
// stage); it fails, never skips, when Chromium is missing.
//
// With LOCKSTEP_VIEW_SCREENSHOTS=<dir> it writes the screenshots docs/lockd.md
// shows (view-fleet.png, view-refused.png) into dir.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
	pb "github.com/lockstep-go/lockstep/lockd/gen/lockstep/v1"
	"github.com/lockstep-go/lockstep/migration"
)

// chromium returns the browser's path: $LOCKSTEP_CHROMIUM, else chromium
// on the PATH. Missing, the test fails saying how to install it.
func chromium(t *testing.T) string {
	if p := os.Getenv("LOCKSTEP_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium: the browser tests need it; install Debian's (apt-get install -y chromium) or set LOCKSTEP_CHROMIUM to a Chromium binary")
	return ""
}

// browser returns a chromedp context on a new headless Chromium, closed at
// the test's end.
func browser(t *testing.T) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 1000), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	require.NoError(t, chromedp.Do(bctx), "starting Chromium")
	return bctx
}

// run runs actions in the browser within 30s.
func run(t *testing.T, bctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%v; the page reads:\n%s", err, bodyText(t, bctx))
	}
}

// value runs one action that returns a value, within 30s.
func value[T any](t *testing.T, bctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	require.NoError(t, err)
	return v
}

// bodyText is what a person reads on the page now.
func bodyText(t *testing.T, bctx context.Context) string {
	return value(t, bctx, chromedp.Evaluate[string](`document.body.innerText`))
}

func screenshot(t *testing.T, bctx context.Context, name string) {
	png := value(t, bctx, chromedp.FullScreenshot(100))
	dir := os.Getenv("LOCKSTEP_VIEW_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), png, 0o644))
}

// replica joins the fleet on f's store as another process with a fixed
// flag, so that the census lists it.
func replica(t *testing.T, f *fixture, process, version string, mode lockstep.Mode) *migration.Locker {
	l, err := migration.New(f.store, migration.Static(mode), &migration.Options{ProcessID: process, Version: version, Separator: "/"})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, l.Ready(ctx))
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

func TestViewBrowser_WhatAPersonSees(t *testing.T) {
	bctx := browser(t)
	f := newFixture(t, fixtureOptions{opts: lockd.Options{Principals: viewPrincipals(t)}, view: true, combined: true,
		deadlock: &lockstep.DeadlockDetection{After: 100 * time.Millisecond, Every: 100 * time.Millisecond}})
	replica(t, f, "billing-7", "v1.4.2", lockstep.ModeCombined)
	straggler := replica(t, f, "batch-3", "v0.9.0", lockstep.ModeLegacy)
	ctx := context.Background()
	app, bee := f.client("connect", "tok-app", nil), f.client("connect", "tok-bee", nil)

	// Refusal: app may lock but is not granted the view.
	run(t, bctx, chromedp.Navigate(f.url+"/ui/"), chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), "tok-app"), chromedp.Submit(chromedp.ID("token")),
		chromedp.WaitVisible(chromedp.ID("refusal")))
	txt := bodyText(t, bctx)
	require.Contains(t, txt, "403: not granted")
	require.Contains(t, txt, `principal "app" is not granted the web view: add "web_view": true`)
	screenshot(t, bctx, "view-refused.png")

	// Log in as ops: the phase, the census, the blocked move naming the
	// replicas in the way.
	run(t, bctx, chromedp.Click(chromedp.CSS("form button")), chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), "tok-ops"), chromedp.Submit(chromedp.ID("token")),
		chromedp.WaitVisible(chromedp.ID("phase")))
	txt = bodyText(t, bctx)
	require.Contains(t, txt, "principal ops")
	require.Contains(t, txt, "phase: combined (processes may take locks in: legacy, combined)")
	require.Regexp(t, `moving to new: migration: phase move combined -> new refused: 1 live process\(es\) use a mode phase new forbids \(allowed: combined, new\): batch-3 on \S+ \(configured legacy\)`, txt,
		"the move names the replica in the way, in lockctl phase set's words")
	require.Contains(t, txt, "moving to legacy: no live process blocks it")
	require.Regexp(t, `billing-7\s+\S+\s+v1\.4\.2\s+combined`, txt, "the census lists each process with its version and mode")

	screenshot(t, bctx, "view-fleet.png")

	// The straggler leaves and the phase moves to new (in combined every
	// request is exclusive, so a line under a/ forms at its root "a",
	// which ops may not see; in new it forms at the id).
	require.NoError(t, straggler.Close(ctx))
	ctl, err := migration.NewController(f.store, nil)
	require.NoError(t, err)
	require.NoError(t, ctl.Set(ctx, lockstep.ModeNew))
	run(t, bctx, chromedp.WaitVisible(chromedp.CSS(`li.move[data-to="combined"]`)))
	require.Contains(t, bodyText(t, bctx), "phase: new (processes may take locks in: combined, new)")

	// A waiter appears in the hot id's line, then leaves when granted.
	sa, sw, sb := open(t, app, 30*time.Second), open(t, app, 30*time.Second), open(t, bee, 30*time.Second)
	held, err := app.Lock(ctx, lockReq(sa, item("a/orders/7", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	_, err = bee.Lock(ctx, lockReq(sb, item("b/secret", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	granted := make(chan error, 1)
	go func() {
		_, err := app.Lock(ctx, withComment(lockReq(sw, item("a/orders/7", pb.Access_ACCESS_SHARED)), "report run"))
		granted <- err
	}()
	waiter := `article[data-id="a/orders/7"] tr.waiter`
	run(t, bctx, chromedp.WaitVisible(chromedp.CSS(waiter)))
	access := value(t, bctx, chromedp.Text(chromedp.CSS(waiter+" td:nth-child(3)")))
	require.Equal(t, "shared", access, "the waiter asks for shared access")
	require.Contains(t, value(t, bctx, chromedp.Text(chromedp.CSS(waiter))), sw, "the waiting session is named")
	require.Contains(t, bodyText(t, bctx), sa, "the holder's session is named")
	txt = bodyText(t, bctx)
	require.NotContains(t, txt, "b/secret", "ops's prefix is a/: bee's id never shows")
	require.Contains(t, txt, "1 lock(s) outside your prefixes")
	screenshot(t, bctx, "view-hot.png")
	_, err = app.Unlock(ctx, connect.NewRequest(&pb.UnlockRequest{SessionId: sa, LockId: held.Msg.Lock.LockId}))
	require.NoError(t, err)
	require.NoError(t, <-granted)
	run(t, bctx, chromedp.WaitNotPresent(chromedp.CSS(waiter)))

	// A deadlock broken: its cycle and comments appear.
	s1, s2 := open(t, app, 30*time.Second), open(t, app, 30*time.Second)
	_, err = app.Lock(ctx, lockReq(s1, item("a/x", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	_, err = app.Lock(ctx, lockReq(s2, item("a/y", pb.Access_ACCESS_EXCLUSIVE)))
	require.NoError(t, err)
	first := make(chan error, 1)
	go func() {
		_, err := app.Lock(ctx, withComment(lockReq(s1, item("a/y", pb.Access_ACCESS_EXCLUSIVE)), "job A"))
		first <- err
	}()
	time.Sleep(300 * time.Millisecond) // s1's wait begins first: s2's is the victim
	_, err = app.Lock(ctx, withComment(lockReq(s2, item("a/x", pb.Access_ACCESS_EXCLUSIVE)), "job B"))
	requireRefusal(t, err, connect.CodeAborted, pb.LockError_REASON_DEADLOCK)
	run(t, bctx, chromedp.WaitVisible(chromedp.CSS(`article.deadlock`)))
	txt = bodyText(t, bctx)
	require.Contains(t, txt, "a cycle of 2 waits")
	require.Contains(t, txt, "— job A")
	require.Contains(t, txt, "— job B")
	screenshot(t, bctx, "view-deadlock.png")
	_, err = app.UnlockAll(ctx, connect.NewRequest(&pb.UnlockAllRequest{SessionId: s2}))
	require.NoError(t, err)
	require.NoError(t, <-first)
	require.False(t, strings.Contains(bodyText(t, bctx), "b/secret"))
}
