package lifecycle

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
)

func TestMutex_SecondLockWaitsForUnlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var m Mutex
		if err := m.Lock(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		got := make(chan struct{})
		go func() {
			_ = m.Lock(context.Background(), nil)
			close(got)
		}()
		synctest.Wait() // the waiter is durably blocked, as the suite needs
		select {
		case <-got:
			t.Fatal("second Lock returned while the first held the mutex")
		default:
		}
		m.Unlock()
		<-got
		m.Unlock()
	})
}

func TestMutex_WaitEndsWithCtxHoldingNothing(t *testing.T) {
	var m Mutex
	_ = m.Lock(context.Background(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.Lock(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock with a done ctx on a held mutex = %v, want context.Canceled", err)
	}
	m.Unlock()
	if err := m.Lock(ctx, nil); err != nil {
		t.Fatalf("Lock with a done ctx on a free mutex = %v, want nil", err)
	}
}
