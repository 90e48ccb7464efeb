package census

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/lockstep-go/lockstep"
)

// DefaultTable is the census table's default name.
const DefaultTable = "fleet_census"

// Row is the partition of the census table that holds the entries.
const Row = "census"

// Entry is one process's census entry: its flag's last mode (Configured) and
// its locks by mode, as sent at Time. TTL is what is left of the cell's
// time to live when it was read.
type Entry struct {
	Process    string
	Host       string
	Configured lockstep.Mode
	Held       map[lockstep.Mode]int
	Acquiring  map[lockstep.Mode]int
	Version    string
	Time       time.Time
	TTL        time.Duration
	// Err: the cell could not be decoded (this blocks every phase move).
	Err error
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

// Cell encodes e as the cell its process writes in Row: column e.Process,
// value the JSON the package documentation shows, timestamp ts, TTL ttl.
func (e Entry) Cell(ts int64, ttl time.Duration) (lockstep.Cell, error) {
	w := wireEntry{Process: e.Process, Host: e.Host, Configured: e.Configured.String(),
		Held: countNames(e.Held), Acquiring: countNames(e.Acquiring), Version: e.Version, Time: e.Time.UTC()}
	b, err := json.Marshal(w)
	if err != nil {
		return lockstep.Cell{}, fmt.Errorf("census: encoding the entry of %q: %w", e.Process, err)
	}
	return lockstep.Cell{Column: e.Process, Value: b, Timestamp: ts, TTL: ttl}, nil
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
		e.Err = fmt.Errorf("census: entry of %q: %w", c.Column, err)
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

// Read returns the live entries of the census in table (DefaultTable when
// empty), sorted by process, writing nothing.
func Read(ctx context.Context, store lockstep.Store, table string) ([]Entry, error) {
	table = cmp.Or(table, DefaultTable)
	if err := lockstep.ValidateName("CensusTable", table); err != nil {
		return nil, err
	}
	cells, err := store.Read(ctx, table, Row, lockstep.Slice{})
	if err != nil {
		return nil, fmt.Errorf("census: reading table %s: %w", table, err)
	}
	out := make([]Entry, 0, len(cells))
	for _, c := range cells {
		out = append(out, decodeEntry(c))
	}
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Process, b.Process) })
	return out, nil
}
