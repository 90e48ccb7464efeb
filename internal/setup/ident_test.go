package setup_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/internal/setup"
)

func TestValidateProcessID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"p", true},
		{"p1", true},
		{"host-1.example.com:8080", true},
		{"A_b.C-d:9", true},
		{strings.Repeat("x", 64), true},
		{strings.Repeat("x", 255), true},
		{"0123456789abcdef0123456789abcdef", true},
		{"", false},
		{strings.Repeat("x", 256), false},
		{"has space", false},
		{"slash/inside", false},
		{"tab\tinside", false},
		{"nul\x00inside", false},
		{"newline\n", false},
		{"ünïcode", false},
		{"quote'", false},
		{"semi;colon", false},
	} {
		err := setup.ValidateProcessID(tc.id)
		if tc.ok && err != nil {
			t.Errorf("ValidateProcessID(%q) = %v, want nil", tc.id, err)
		}
		if !tc.ok && !errors.Is(err, lockstep.ErrInvalidConfig) {
			t.Errorf("ValidateProcessID(%q) = %v, want ErrInvalidConfig", tc.id, err)
		}
	}
}

func TestNewProcessID_IsValidAndRandom(t *testing.T) {
	seen := make(map[string]bool)
	for range 100 {
		id := setup.NewProcessID()
		require.NoError(t, setup.ValidateProcessID(id), "NewProcessID() = %q", id)
		require.False(t, seen[id], "NewProcessID() repeated %q", id)
		seen[id] = true
	}
}

func TestNewProcessIDFor_NamesTheHost(t *testing.T) {
	id := setup.NewProcessIDFor("pod-7.orders.svc.cluster.local")
	assert.Regexp(t, `^pod-7\.orders\.svc\.cluster\.local-[0-9a-f]{16}$`, id)

	id = setup.NewProcessIDFor("bad host/name ü")
	assert.Regexp(t, `^bad-host-name----[0-9a-f]{16}$`, id)
	require.NoError(t, setup.ValidateProcessID(id))

	assert.Regexp(t, `^lockstep-[0-9a-f]{16}$`, setup.NewProcessIDFor(""))

	long := setup.NewProcessIDFor(strings.Repeat("h", 400))
	assert.Len(t, long, setup.MaxProcessIDLen)
	require.NoError(t, setup.ValidateProcessID(long))
}

func TestValidateProcessID_Text(t *testing.T) {
	err := setup.ValidateProcessID(strings.Repeat("x", 256))
	require.ErrorIs(t, err, lockstep.ErrInvalidConfig)
	assert.Equal(t, `lockstep: invalid configuration: ProcessID: 256 bytes ("`+strings.Repeat("x", 40)+`"…): `+
		`a process id is 1 to 255 bytes of [A-Za-z0-9._:-]; use e.g. the pod or host name, `+
		`or leave it empty for a default (host name and a random suffix)`, err.Error())

	err = setup.ValidateProcessID("a/b")
	assert.Contains(t, err.Error(), `"a/b" has '/' at byte 1: a process id is 1 to 255 bytes`)
}

func TestOwners_NamesOwnersAfterTheProcess(t *testing.T) {
	o := setup.NewOwners("p7")
	if got := o.Process(); got != "p7" {
		t.Fatalf("Process() = %q", got)
	}
	if a, b := o.Next(), o.Next(); a != "p7.1" || b != "p7.2" {
		t.Fatalf("Next() = %q, %q; want p7.1, p7.2", a, b)
	}
}

func TestOwners_NextIsUniqueUnderConcurrency(t *testing.T) {
	const goroutines, calls = 8, 1000
	o := setup.NewOwners("proc")
	got := make([][]string, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range calls {
				got[g] = append(got[g], o.Next())
			}
		})
	}
	wg.Wait()
	seen := make(map[string]bool, goroutines*calls)
	for _, ids := range got {
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("owner id %q issued twice", id)
			}
			if !strings.HasPrefix(id, "proc.") {
				t.Fatalf("owner id %q lacks the process prefix", id)
			}
			seen[id] = true
		}
	}
	if len(seen) != goroutines*calls {
		t.Fatalf("%d distinct ids, want %d", len(seen), goroutines*calls)
	}
}

func TestOwners_OfDifferentProcessesNeverCollide(t *testing.T) {
	// Process ids may contain dots, so "p" and "p.1" are both valid; their
	// owner ids must still differ ("p.<n>" against "p.1.<n>": an owner id
	// splits uniquely at its last dot, since the sequence has none).
	a, b := setup.NewOwners("p"), setup.NewOwners("p.1")
	seen := make(map[string]string)
	for range 20 {
		for name, o := range map[string]*setup.Owners{"p": a, "p.1": b} {
			id := o.Next()
			if prev, dup := seen[id]; dup {
				t.Fatalf("owner id %q issued by both process %q and %q", id, prev, name)
			}
			seen[id] = name
		}
	}
}

func TestOwnersFor_SharesANewOrTheProcesssOwnIssuer(t *testing.T) {
	o, err := setup.OwnersFor(nil, "p1")
	if err != nil || o.Process() != "p1" {
		t.Fatalf("nil issuer: %v, %v", o, err)
	}
	if got, err := setup.OwnersFor(o, "p1"); err != nil || got != o {
		t.Fatalf("the process's own issuer: %v, %v", got, err)
	}
	if got, err := setup.OwnersFor(o, "p2"); got != nil || !errors.Is(err, lockstep.ErrInvalidConfig) {
		t.Fatalf("another process's issuer: %v, %v", got, err)
	}
}
