package deref

import "testing"

func TestOf_NilIsZeroAndValueIsCopied(t *testing.T) {
	type opts struct{ N int }
	if got := Of[opts](nil); got != (opts{}) {
		t.Fatalf("Of(nil) = %+v, want the zero value", got)
	}
	p := &opts{N: 3}
	got := Of(p)
	p.N = 4
	if got.N != 3 {
		t.Fatalf("Of(p).N = %d after p changed, want the copy's 3", got.N)
	}
}
