package migration

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
)

// A Separator on the inner Lockers' options would make the inner Locker
// expand ancestors a second time and return a group instead of the
// *held.Lock the census binds (acquire): before New refused it, Lock("a")
// in mode new with Queue.Separator set panicked ("lockstep.Lock is
// manager.FencedLock, not *held.Lock"). Options.Separator says "set it here,
// not on Queue or Legacy"; New must say so, as combined.New does.
func TestNew_RefusesSeparatorOnInnerOptions(t *testing.T) {
	for name, set := range map[string]func(*Options){
		"Queue":  func(o *Options) { o.Queue.Separator = "/" },
		"Legacy": func(o *Options) { o.Legacy.Separator = "/" },
	} {
		t.Run(name, func(t *testing.T) {
			store := newStore()
			setPhase(t, newController(t, store, 0), lockstep.ModeCombined, lockstep.ModeNew)
			o := withIdentity(testOptions(1), nil, "p1")
			o.Separator = "/"
			set(o)
			l, err := New(store, flagOf(lockstep.ModeNew), o)
			if err == nil {
				// Show what the misconfiguration does before failing.
				defer l.Close(context.Background())
				func() {
					defer func() {
						if r := recover(); r != nil {
							err = errors.New("Lock panicked")
							t.Logf("Lock(\"a\") panicked: %v", r)
						}
					}()
					if lk, lerr := l.Lock(context.Background(), "a"); lerr == nil {
						_ = lk.Unlock(context.Background())
					}
				}()
				t.Fatalf("New accepted %s.Separator; want a *lockstep.ConfigError", name)
			}
			var ce *lockstep.ConfigError
			require.ErrorAs(t, err, &ce)
			require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
			require.Contains(t, err.Error(), "Options.Separator")
		})
	}
}
