package lockstep_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep"
)

func TestScope_RowsOfScopesNeverCollide(t *testing.T) {
	var global lockstep.Scope
	dc1, dc2 := lockstep.LocalTo("dc1"), lockstep.LocalTo("dc2")
	if !global.IsGlobal() || dc1.IsGlobal() || dc1.DC() != "dc1" {
		t.Fatalf("scopes: %v %v", global, dc1)
	}
	rows := map[string]string{}
	for _, s := range []lockstep.Scope{global, dc1, dc2} {
		for _, id := range []string{"a", "dc1", "dc1/a", "a\u00e9", "leader", "dc2"} {
			if err := lockstep.ValidateID(id); err != nil {
				t.Fatal(err)
			}
			r := s.Row(id)
			if prev, ok := rows[r]; ok {
				t.Fatalf("row %q of %v/%q also %s's", r, s, id, prev)
			}
			rows[r] = s.String() + "/" + id
			// An election's record row of id in scope s.
			rows[r+"\x00leader"] = "election " + s.String() + "/" + id
		}
	}
	if len(rows) != 3*6*2 {
		t.Fatalf("%d distinct rows, want %d: %q", len(rows), 3*6*2, rows)
	}
	if global.Row("x") != "x" || dc1.Row("x") != "\x00dc1\x00x" {
		t.Fatalf("rows: %q %q", global.Row("x"), dc1.Row("x"))
	}
}

type scopedStore struct {
	lockstep.Store
	s lockstep.Scope
}

func (s scopedStore) Scope() lockstep.Scope { return s.s }

type plainStore struct{ lockstep.Store }

func (plainStore) Read(context.Context, string, string, lockstep.Slice) ([]lockstep.Cell, error) {
	return nil, nil
}

func TestScopeOf_StoresWithoutScopeAreGlobal(t *testing.T) {
	if s := lockstep.ScopeOf(plainStore{}); !s.IsGlobal() {
		t.Fatalf("plain store: %v", s)
	}
	if s := lockstep.ScopeOf(scopedStore{s: lockstep.LocalTo("eu")}); s != lockstep.LocalTo("eu") {
		t.Fatalf("scoped store: %v", s)
	}
}

func TestLocalTo_EmptyNameIsNotGlobal(t *testing.T) {
	s := lockstep.LocalTo("")
	if s.IsGlobal() || s == (lockstep.Scope{}) {
		t.Fatalf("LocalTo(\"\") = %v, global", s)
	}
	if err := lockstep.ValidateDC(s.DC()); err == nil {
		t.Fatal("an empty data centre name accepted")
	}
}

func TestValidateDC_RefusesNamesThatCannotPrefixARow(t *testing.T) {
	for _, dc := range []string{"", "a\x00b", " dc1", strings.Repeat("d", lockstep.MaxDCLen+1), "\xff"} {
		err := lockstep.ValidateDC(dc)
		if !errors.Is(err, lockstep.ErrInvalidConfig) || !strings.Contains(err.Error(), "name the data centre") {
			t.Errorf("ValidateDC(%q) = %v", dc, err)
		}
	}
	if err := lockstep.ValidateDC("us-east-1"); err != nil {
		t.Fatal(err)
	}
}
