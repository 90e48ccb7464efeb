package lockstep

import (
	"fmt"
	"strings"
)

// Mode is the lock algorithm an acquisition uses during a migration.
//
// Mutual exclusion holds across a fleet whose live modes all lie within
// {ModeLegacy, ModeCombined} or all within {ModeCombined, ModeNew}. Legacy
// and new processes touch disjoint rows and must never run side by side.
type Mode uint8

const (
	// ModeUnknown is the zero Mode; no lock is ever taken in it.
	ModeUnknown Mode = iota
	// ModeLegacy is the shadow-table algorithm of seed 000 §4.
	ModeLegacy
	// ModeCombined takes the queue lock and then the legacy lock (seed 000 §7.2).
	ModeCombined
	// ModeNew is the queue algorithm of seed 000 §5 with this module's refinements.
	ModeNew
)

var modeNames = [...]string{ModeUnknown: "unknown", ModeLegacy: "legacy", ModeCombined: "combined", ModeNew: "new"}

// String returns the mode's lower-case name.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// Valid reports whether m is one of ModeLegacy, ModeCombined and ModeNew.
func (m Mode) Valid() bool { return m >= ModeLegacy && m <= ModeNew }

// ParseMode parses "legacy", "combined" or "new" (case-insensitive, surrounding
// white space ignored). Any other string returns an error wrapping
// ErrInvalidMode.
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "legacy":
		return ModeLegacy, nil
	case "combined":
		return ModeCombined, nil
	case "new":
		return ModeNew, nil
	}
	return ModeUnknown, fmt.Errorf("%w: %q (want legacy, combined or new)", ErrInvalidMode, s)
}

// MarshalText implements encoding.TextMarshaler.
func (m Mode) MarshalText() ([]byte, error) {
	if !m.Valid() {
		return nil, fmt.Errorf("%w: %v", ErrInvalidMode, m)
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}
