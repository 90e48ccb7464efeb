package cassandra

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/lockstep-go/lockstep"
)

func TestNewFenceStore_RefusesBadConfig(t *testing.T) {
	for name, err := range map[string]error{
		"nil session":     func() error { _, err := NewFenceStore(nil, "ks"); return err }(),
		"unsafe keyspace": func() error { _, err := NewFenceStore(new(gocql.Session), "ks; DROP"); return err }(),
		"QUORUM as serial": func() error {
			_, err := NewFenceStore(new(gocql.Session), "ks", WithSerialConsistency(gocql.SerialConsistency(gocql.Quorum)))
			return err
		}(),
	} {
		if !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("%s: got %v, want ErrInvalidConfig", name, err)
		}
	}
	if _, err := NewFenceStore(new(gocql.Session), "ks", WithSerialConsistency(gocql.LocalSerial)); !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Fatalf("LOCAL_SERIAL for a global resource: got %v, want ErrInvalidConfig", err)
	}
	s, err := NewFenceStore(new(gocql.Session), "ks", WithSerialConsistency(gocql.LocalSerial), WithFenceLocalDC("dc1"))
	if err != nil || s.commit != gocql.LocalQuorum {
		t.Fatalf("LOCAL_SERIAL: %v, commit at %v; want LOCAL_QUORUM", err, s.commit)
	}
}

// Bad input is refused before anything is sent: the session here is not
// connected, so a request would fail differently (or panic). The refusals
// themselves are package cqlstore's, tested there case by case.
func TestFenceStore_BadInputIsRefusedBeforeSending(t *testing.T) {
	s, err := NewFenceStore(new(gocql.Session), "ks")
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	applied, _, err := s.CommitIfNewer(t.Context(), "t", "k", 0, nil)
	if err == nil || applied || errors.Is(err, lockstep.ErrUnknownOutcome) {
		t.Errorf("token 0: applied %v, err %v; want a plain error", applied, err)
	}
	if _, _, err := s.CommitIfNewer(cancelled, "t", "k", 1, nil); !errors.Is(err, context.Canceled) || errors.Is(err, lockstep.ErrUnknownOutcome) {
		t.Errorf("cancelled ctx: %v; want context.Canceled, not an unknown outcome", err)
	}
	if _, _, err := s.Load(t.Context(), "t", ""); err == nil {
		t.Error("Load of an empty key: no error")
	}
}

func TestFenceStatements_ConditionAllowsTheSameToken(t *testing.T) {
	s, _ := NewFenceStore(new(gocql.Session), "ks")
	st, err := s.core.StatementsFor("fenced_resource")
	if err != nil {
		t.Fatal(err)
	}
	if want := "UPDATE ks.fenced_resource SET fence_token = ?, value = ? WHERE row_key = ? IF fence_token <= ?"; st.Update != want {
		t.Errorf("update %q, want %q", st.Update, want)
	}
	if !strings.HasSuffix(st.Insert, "IF NOT EXISTS") || !strings.HasPrefix(st.Insert, "INSERT INTO ks.fenced_resource ") {
		t.Errorf("insert %q", st.Insert)
	}
}
