package openfeature_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	of "github.com/open-feature/go-sdk/openfeature"
	"github.com/open-feature/go-sdk/openfeature/isolated"
	"github.com/open-feature/go-sdk/openfeature/memprovider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	lockof "github.com/lockstep-go/lockstep/adapters/openfeature"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/migration"
	"github.com/lockstep-go/lockstep/model"
)

// modeFlag is a string flag with the three modes as variants, serving the
// variant named on.
func modeFlag(key, on string, state memprovider.State) memprovider.InMemoryFlag {
	return memprovider.InMemoryFlag{Key: key, State: state, DefaultVariant: on,
		Variants: map[string]any{"legacy": "legacy", "combined": "combined", "new": "new", "odd": "banana", "shout": " NEW "}}
}

// flaky is the in-memory provider with a switch that makes every string
// evaluation fail as a provider whose backend is unreachable does.
type flaky struct {
	*memprovider.InMemoryProvider
	down atomic.Bool
}

func (p *flaky) StringEvaluation(ctx context.Context, flag string, def string, fc of.FlattenedContext) of.StringResolutionDetail {
	if p.down.Load() {
		return of.StringResolutionDetail{Value: def, ProviderResolutionDetail: of.ProviderResolutionDetail{
			ResolutionError: of.NewGeneralResolutionError("flag service unreachable"), Reason: of.ErrorReason}}
	}
	return p.InMemoryProvider.StringEvaluation(ctx, flag, def, fc)
}

// newClient returns a client of an OpenFeature API of its own (not the
// global one) serving flags from an in-memory provider.
func newClient(t *testing.T, flags ...memprovider.InMemoryFlag) (*of.Client, *flaky) {
	t.Helper()
	m := map[string]memprovider.InMemoryFlag{}
	for _, f := range flags {
		m[f.Key] = f
	}
	p := &flaky{InMemoryProvider: memprovider.NewInMemoryProvider(m)}
	api := isolated.NewAPI()
	require.NoError(t, api.SetProviderAndWait(context.Background(), p))
	t.Cleanup(func() { _ = api.Shutdown(context.Background()) })
	return api.NewClient(), p
}

func TestFlag_AnswersTheVariantsMode(t *testing.T) {
	ctx := context.Background()
	client, p := newClient(t, modeFlag(lockof.DefaultKey, "legacy", memprovider.Enabled))
	f, err := lockof.New(client, nil)
	require.NoError(t, err)
	assert.Equal(t, "lockstep-mode", f.Key())
	for variant, want := range map[string]lockstep.Mode{"legacy": lockstep.ModeLegacy, "combined": lockstep.ModeCombined, "new": lockstep.ModeNew, "shout": lockstep.ModeNew} {
		p.UpdateFlags(map[string]memprovider.InMemoryFlag{lockof.DefaultKey: modeFlag(lockof.DefaultKey, variant, memprovider.Enabled)})
		m, err := f.Mode(ctx)
		require.NoError(t, err, variant)
		assert.Equal(t, want, m, variant)
	}
}

func TestFlag_AValueThatIsNotAModeIsInvalidMode(t *testing.T) {
	client, _ := newClient(t, modeFlag("lock-mode", "odd", memprovider.Enabled))
	f, err := lockof.New(client, &lockof.Options{Key: "lock-mode", Default: lockstep.ModeLegacy})
	require.NoError(t, err)
	m, err := f.Mode(context.Background())
	require.ErrorIs(t, err, lockstep.ErrInvalidMode)
	assert.Equal(t, lockstep.ModeUnknown, m)
	assert.ErrorContains(t, err, `openfeature flag "lock-mode" (variant "odd"`)
	assert.ErrorContains(t, err, `"banana" (want legacy, combined or new)`)
}

// Evaluation failures are errors naming the code and what to do; the
// configured Default is never answered in their place.
func TestFlag_EvaluationFailuresAreErrorsNotTheDefault(t *testing.T) {
	ctx := context.Background()
	boolFlag := memprovider.InMemoryFlag{Key: "bool-flag", State: memprovider.Enabled, DefaultVariant: "on", Variants: map[string]any{"on": true}}
	client, p := newClient(t, modeFlag(lockof.DefaultKey, "new", memprovider.Enabled), boolFlag)

	missing, err := lockof.New(client, &lockof.Options{Key: "no-such-flag", Default: lockstep.ModeLegacy})
	require.NoError(t, err)
	_, err = missing.Mode(ctx)
	require.ErrorContains(t, err, "FLAG_NOT_FOUND")
	assert.ErrorContains(t, err, "create it as a string flag")

	wrongType, err := lockof.New(client, &lockof.Options{Key: "bool-flag", Default: lockstep.ModeLegacy})
	require.NoError(t, err)
	_, err = wrongType.Mode(ctx)
	require.ErrorContains(t, err, "TYPE_MISMATCH")

	f, err := lockof.New(client, &lockof.Options{Default: lockstep.ModeLegacy})
	require.NoError(t, err)
	p.down.Store(true)
	m, err := f.Mode(ctx)
	require.ErrorContains(t, err, "GENERAL")
	assert.ErrorContains(t, err, "flag service unreachable")
	assert.NotErrorIs(t, err, lockstep.ErrInvalidMode, "a provider failure is not a bad value")
	assert.Equal(t, lockstep.ModeUnknown, m)
	p.down.Store(false)
	m, err = f.Mode(ctx)
	require.NoError(t, err)
	assert.Equal(t, lockstep.ModeNew, m)
}

// A disabled flag evaluates to the SDK's default value without error: that is
// Options.Default, or an error when none is set.
func TestFlag_DisabledFlagAnswersDefaultOnlyIfSet(t *testing.T) {
	ctx := context.Background()
	client, _ := newClient(t, modeFlag(lockof.DefaultKey, "new", memprovider.Disabled))
	noDefault, err := lockof.New(client, nil)
	require.NoError(t, err)
	_, err = noDefault.Mode(ctx)
	require.ErrorIs(t, err, lockstep.ErrInvalidMode)
	assert.ErrorContains(t, err, "reason DISABLED")
	assert.ErrorContains(t, err, "set Options.Default")

	withDefault, err := lockof.New(client, &lockof.Options{Default: lockstep.ModeCombined})
	require.NoError(t, err)
	m, err := withDefault.Mode(ctx)
	require.NoError(t, err)
	assert.Equal(t, lockstep.ModeCombined, m)
}

func TestNew_RefusesBadArgumentsSayingWhich(t *testing.T) {
	_, err := lockof.New(nil, nil)
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.ErrorContains(t, err, "nil OpenFeature client")
	client, _ := newClient(t)
	_, err = lockof.New(client, &lockof.Options{Default: lockstep.Mode(9)})
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.ErrorContains(t, err, "Default")
}

// A migration.Locker on the model store follows the flag: locks taken in
// legacy, then, after the phase moved to combined and the flag flipped in
// the provider, in combined; while the provider is down it takes no lock at
// all, and a flip to new ahead of the phase is refused by the guard.
func TestFlag_DrivesAMigrationLockerThroughAFlip(t *testing.T) {
	client, p := newClient(t, modeFlag(lockof.DefaultKey, "legacy", memprovider.Enabled))
	flip := func(variant string) {
		p.UpdateFlags(map[string]memprovider.InMemoryFlag{lockof.DefaultKey: modeFlag(lockof.DefaultKey, variant, memprovider.Enabled)})
	}
	f, err := lockof.New(client, nil)
	require.NoError(t, err)
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store := model.New(&clock.Local{})
		locker, err := migration.New(store, f, &migration.Options{ProcessID: "billing-1"})
		require.NoError(t, err)
		defer locker.Close(ctx)
		ctl, err := migration.NewController(store, nil)
		require.NoError(t, err)

		lockIn := func(want lockstep.Mode) {
			t.Helper()
			l, err := locker.Lock(ctx, "invoice/42")
			require.NoError(t, err)
			assert.Equal(t, want, l.Mode())
			require.NoError(t, l.Unlock(ctx))
		}
		lockIn(lockstep.ModeLegacy)

		require.NoError(t, ctl.Set(ctx, lockstep.ModeCombined))
		flip("combined")
		lockIn(lockstep.ModeCombined)
		assert.Equal(t, lockstep.ModeCombined, locker.Entry().Configured)

		p.down.Store(true)
		_, err = locker.Lock(ctx, "invoice/42")
		require.ErrorContains(t, err, "migration: mode flag: openfeature flag \"lockstep-mode\": evaluation failed (GENERAL)")
		p.down.Store(false)

		flip("new") // the phase is still combined, which forbids new
		_, err = locker.Lock(ctx, "invoice/42")
		var me *migration.ModeError
		require.ErrorAs(t, err, &me)
		assert.Equal(t, lockstep.ModeNew, me.Configured)

		flip("combined")
		require.NoError(t, ctl.Set(ctx, lockstep.ModeNew))
		flip("new")
		lockIn(lockstep.ModeNew)
	})
}
