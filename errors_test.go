package lockstep_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lockstep-go/lockstep"
)

func TestForeignCellError_SaysWhereAndWhatToDo(t *testing.T) {
	err := fmt.Errorf("queuelock: %q: %w", "id", &lockstep.ForeignCellError{Table: "queue_lock", Row: "id", Column: "zz", Reason: "not ours"})
	if !errors.Is(err, lockstep.ErrForeignCell) {
		t.Fatalf("%v does not wrap ErrForeignCell", err)
	}
	var fe *lockstep.ForeignCellError
	if !errors.As(err, &fe) || fe.Column != "zz" {
		t.Fatalf("errors.As = %+v", fe)
	}
	for _, want := range []string{"table queue_lock", `row "id"`, `column "zz"`, "not ours", "another writer shares the table", "left nothing behind"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}
