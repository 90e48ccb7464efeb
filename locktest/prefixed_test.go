package locktest

import (
	"context"
	"testing"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/clock"
	"github.com/lockstep-go/lockstep/model"
)

// Prefixed keeps its store's lockstep.Mutator, with the prefix on the row
// of a PutDelete too; over a store without one, it has none.
func TestPrefixed_KeepsAMutator(t *testing.T) {
	ctx := context.Background()
	s := model.New(&clock.Local{})
	p := Prefixed(s, "p/")
	m, ok := p.(lockstep.Mutator)
	if !ok {
		t.Fatal("Prefixed over a Mutator is no Mutator")
	}
	if err := p.Put(ctx, "t", "r", lockstep.Cell{Column: "a", Value: []byte("1"), Timestamp: 1, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if err := m.PutDelete(ctx, "t", "r", 2, []string{"a"}, lockstep.Cell{Column: "b", Value: []byte("2"), Timestamp: 2, TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Read(ctx, "t", "p/r", lockstep.Slice{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Column != "b" {
		t.Fatalf("row p/r after the PutDelete = %+v, want cell b alone", got)
	}
	if _, ok := Prefixed(struct{ lockstep.Store }{s}, "p/").(lockstep.Mutator); ok {
		t.Fatal("Prefixed over a store without PutDelete claims one")
	}
}
