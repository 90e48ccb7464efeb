package migration

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/lockstep-go/lockstep"
)

// DefaultCensusTable is the census table's default name.
const DefaultCensusTable = "fleet_census"

// censusRow is the partition of the census table that holds the entries.
const censusRow = "census"

// defaultCensusTTL is Options.CensusTTL's default.
const defaultCensusTTL = 30 * time.Second

// Entry is one process's census entry: its flag's last mode (Configured) and
// its locks by mode, as sent at Time.
type Entry struct {
	Process    string                `json:"process"`
	Host       string                `json:"host"`
	Configured lockstep.Mode         `json:"-"`
	Held       map[lockstep.Mode]int `json:"-"`
	Acquiring  map[lockstep.Mode]int `json:"-"`
	Version    string                `json:"version"`
	Time       time.Time             `json:"-"`
	TTL        time.Duration         `json:"-"`
	// Err: the cell could not be decoded (this blocks every move).
	Err error `json:"-"`
}

// wireEntry is the JSON of an entry. Modes are names, so a reader of any
// version can print what it cannot interpret.
type wireEntry struct {
	Process    string         `json:"process"`
	Host       string         `json:"host"`
	Configured string         `json:"configured"`
	Held       map[string]int `json:"held"`
	Acquiring  map[string]int `json:"acquiring,omitempty"`
	Version    string         `json:"version"`
	Time       time.Time      `json:"time"`
}

func countNames(in map[lockstep.Mode]int) map[string]int {
	out := make(map[string]int, len(in))
	for m, n := range in {
		if n > 0 {
			out[m.String()] = n
		}
	}
	return out
}

func (e Entry) marshal() ([]byte, error) {
	w := wireEntry{Process: e.Process, Host: e.Host, Configured: e.Configured.String(),
		Held: countNames(e.Held), Version: e.Version, Time: e.Time.UTC()}
	if a := countNames(e.Acquiring); len(a) > 0 {
		w.Acquiring = a
	}
	return json.Marshal(w)
}

func parseCounts(in map[string]int) (map[lockstep.Mode]int, error) {
	out := make(map[lockstep.Mode]int, len(in))
	for name, n := range in {
		m, err := lockstep.ParseMode(name)
		if err != nil {
			return nil, err
		}
		out[m] += n
	}
	return out, nil
}

// decodeEntry decodes one census cell. On failure the entry carries Err and
// the process id from the column.
func decodeEntry(c lockstep.Cell) Entry {
	e := Entry{Process: c.Column, TTL: c.TTL}
	var w wireEntry
	err := json.Unmarshal(c.Value, &w)
	if err == nil {
		e.Host, e.Version, e.Time = w.Host, w.Version, w.Time
		if w.Configured != lockstep.ModeUnknown.String() {
			e.Configured, err = lockstep.ParseMode(w.Configured)
		}
	}
	if err == nil {
		e.Held, err = parseCounts(w.Held)
	}
	if err == nil {
		e.Acquiring, err = parseCounts(w.Acquiring)
	}
	if err != nil {
		e.Err = fmt.Errorf("migration: census entry of %q: %w", c.Column, err)
	}
	return e
}

// InUse returns the modes the process may take or hold locks in.
func (e Entry) InUse() []lockstep.Mode {
	var out []lockstep.Mode
	for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
		if e.Configured == m || e.Held[m] > 0 || e.Acquiring[m] > 0 {
			out = append(out, m)
		}
	}
	return out
}

// String summarizes the entry for operators.
func (e Entry) String() string {
	if e.Err != nil {
		return e.Process + ": " + e.Err.Error()
	}
	s := fmt.Sprintf("%s (host %s, version %s): configured %v", e.Process, e.Host, e.Version, e.Configured)
	for _, part := range []struct {
		verb   string
		counts map[lockstep.Mode]int
	}{{"holds", e.Held}, {"acquiring", e.Acquiring}} {
		for m := lockstep.ModeLegacy; m <= lockstep.ModeNew; m++ {
			if n := part.counts[m]; n > 0 {
				s += fmt.Sprintf(", %s %v×%d", part.verb, m, n)
			}
		}
	}
	return s
}

// CensusOptions name the census table; nil means DefaultCensusTable.
type CensusOptions struct {
	Table string
}

func (o *CensusOptions) table() (string, error) {
	t := DefaultCensusTable
	if o != nil && o.Table != "" {
		t = o.Table
	}
	return t, lockstep.ValidateName("CensusTable", t)
}

// ReadCensus returns the live census entries, writing nothing.
func ReadCensus(ctx context.Context, store lockstep.Store, opts *CensusOptions) ([]Entry, error) {
	table, err := opts.table()
	if err != nil {
		return nil, err
	}
	cells, err := store.Read(ctx, table, censusRow, lockstep.Slice{})
	if err != nil {
		return nil, fmt.Errorf("migration: reading census: %w", err)
	}
	out := make([]Entry, 0, len(cells))
	for _, c := range cells {
		out = append(out, decodeEntry(c))
	}
	slices.SortFunc(out, func(a, b Entry) int {
		switch {
		case a.Process < b.Process:
			return -1
		case a.Process > b.Process:
			return 1
		}
		return 0
	})
	return out, nil
}
