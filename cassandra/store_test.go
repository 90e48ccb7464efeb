package cassandra

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
)

func TestStore_CachesStatementsPerTable(t *testing.T) {
	s, err := New(session, "locks")
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.core.StatementsFor("legacy_main")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.core.StatementsFor("legacy_main")
	c, _ := s.core.StatementsFor("legacy_shadow")
	if a != b {
		t.Error("statements of one table built twice")
	}
	if a == c || c.Put != "UPDATE locks.legacy_shadow USING TIMESTAMP ? AND TTL ? SET value = ? WHERE row_key = ? AND column_name = ?" {
		t.Errorf("statements of another table: %q", c.Put)
	}
}

// The following calls would panic on the empty test session if they sent a
// request: each must be refused before that.

func TestStore_RefusesUnsafeTableBeforeSending(t *testing.T) {
	s, _ := New(session, "locks")
	ctx := context.Background()
	for _, table := range []string{"", "Queue", "queue_lock; DROP TABLE x", "other.queue_lock"} {
		if err := s.Put(ctx, table, "r", lockstep.Cell{Column: "c", TTL: time.Second}); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("Put %q: got %v", table, err)
		}
		if err := s.Delete(ctx, table, "r", 1, "c"); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("Delete %q: got %v", table, err)
		}
		if _, err := s.Read(ctx, table, "r", lockstep.Slice{}); !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("Read %q: got %v", table, err)
		}
	}
}

func TestStore_PutRefusesBadTTLAndWritesNothing(t *testing.T) {
	s, _ := New(session, "locks")
	for _, ttl := range []time.Duration{-time.Second, time.Millisecond, 1500 * time.Millisecond, 630720001 * time.Second} {
		good := lockstep.Cell{Column: "a", TTL: time.Second}
		err := s.Put(context.Background(), "queue_lock", "r", good, lockstep.Cell{Column: "b", TTL: ttl})
		if !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("TTL %v: got %v, want ErrInvalidConfig", ttl, err)
		}
	}
}

func TestStore_EmptyCallsSendNothing(t *testing.T) {
	s, _ := New(session, "locks")
	ctx := context.Background()
	if err := s.Put(ctx, "queue_lock", "r"); err != nil {
		t.Errorf("Put with no cells: %v", err)
	}
	if err := s.Delete(ctx, "queue_lock", "r", 1); err != nil {
		t.Errorf("Delete with no columns: %v", err)
	}
	cells, err := s.Read(ctx, "queue_lock", "r", lockstep.Slice{From: "b", To: "b"})
	if err != nil || cells != nil {
		t.Errorf("Read of an empty range: %v, %v", cells, err)
	}
	if _, err := s.Read(ctx, "queue_lock", "r", lockstep.Slice{Limit: -1}); err == nil {
		t.Error("Read with a negative limit: no error")
	}
}

func TestStore_DoneContextIsNotAnUnknownOutcome(t *testing.T) {
	s, _ := New(session, "locks")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Put(ctx, "queue_lock", "r", lockstep.Cell{Column: "c", TTL: time.Second})
	if !errors.Is(err, context.Canceled) || errors.Is(err, lockstep.ErrUnknownOutcome) {
		t.Errorf("Put: got %v, want context.Canceled and not ErrUnknownOutcome", err)
	}
	err = s.Delete(ctx, "queue_lock", "r", 1, "c")
	if !errors.Is(err, context.Canceled) || errors.Is(err, lockstep.ErrUnknownOutcome) {
		t.Errorf("Delete: got %v, want context.Canceled and not ErrUnknownOutcome", err)
	}
}
