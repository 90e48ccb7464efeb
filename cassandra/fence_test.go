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
	s, err := NewFenceStore(new(gocql.Session), "ks", WithSerialConsistency(gocql.LocalSerial))
	if err != nil || s.commit != gocql.LocalQuorum {
		t.Fatalf("LOCAL_SERIAL: %v, commit at %v; want LOCAL_QUORUM", err, s.commit)
	}
}

// Bad input is refused before anything is sent: the session here is not
// connected, so a request would fail differently (or panic).
func TestFenceStore_BadInputIsRefusedBeforeSending(t *testing.T) {
	s, err := NewFenceStore(new(gocql.Session), "ks")
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, c := range []struct {
		ctx        context.Context
		table, key string
		token      int64
		want       string
	}{
		{t.Context(), "Bad", "k", 1, "not a safe identifier"},
		{t.Context(), "t", "", 1, "non-empty"},
		{t.Context(), "t", "\xff", 1, "UTF-8"},
		{t.Context(), "t", "k", 0, "positive"},
		{cancelled, "t", "k", 1, "canceled"},
	} {
		applied, _, err := s.CommitIfNewer(c.ctx, c.table, c.key, c.token, nil)
		if err == nil || applied || !strings.Contains(err.Error(), c.want) || errors.Is(err, lockstep.ErrUnknownOutcome) {
			t.Errorf("CommitIfNewer(%q, %q, %d): applied %v, err %v; want a plain error saying %q", c.table, c.key, c.token, applied, err, c.want)
		}
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
