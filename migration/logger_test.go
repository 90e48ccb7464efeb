package migration

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/queuelock"
	"github.com/lockstep-go/lockstep/shadowlock"
)

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Options.Logger reaches the algorithms: a lock whose renewals fail is
// reported through it, in legacy and in new mode.
func TestOptions_LoggerReachesEveryAlgorithm(t *testing.T) {
	for _, tc := range []struct {
		mode  lockstep.Mode
		table string
		want  string
	}{
		{lockstep.ModeLegacy, shadowlock.DefaultMainTable, "shadowlock: renewal failed"},
		{lockstep.ModeNew, queuelock.DefaultTable, "queuelock: renewal failed"},
	} {
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			s := &cutStore{Store: newStore(), table: tc.table}
			c := newController(t, s, 0)
			if tc.mode == lockstep.ModeNew {
				setPhase(t, c, lockstep.ModeCombined, lockstep.ModeNew)
			}
			var buf syncBuffer
			o := testOptions(1)
			o.Logger = slog.New(slog.NewTextHandler(&buf, nil))
			l, err := New(s, Static(tc.mode), withIdentity(o, &clock.Local{}, "logged"))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close(ctx)
			h, err := l.Lock(ctx, "id")
			if err != nil {
				t.Fatal(err)
			}
			s.cut.Store(true)
			time.Sleep(testTTL)
			synctest.Wait()
			s.cut.Store(false)
			_ = h.Unlock(ctx)
			if !strings.Contains(buf.String(), tc.want) {
				t.Fatalf("%v: log does not report %q:\n%s", tc.mode, tc.want, buf.String())
			}
		})
	}
}
