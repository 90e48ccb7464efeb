package propertytests

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// scheduleSeeds is how many seeds of each fleet TestSchedule_SameSeedSameRun
// runs and testdata/schedules.txt records.
const scheduleSeeds = 6

var schedulesFile = filepath.Join("testdata", "schedules.txt")

// digest names a trace by the first 16 bytes of its SHA-256 and its length
// in lines.
func digest(trace string) string {
	sum := sha256.Sum256([]byte(trace))
	return fmt.Sprintf("%s/%d", hex.EncodeToString(sum[:16]), strings.Count(trace, "\n")+1)
}

// loadSchedules reads the recorded digests: "fleet seed digest" per line.
func loadSchedules() (map[string]string, error) {
	f, err := os.Open(schedulesFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("%s: bad line %q", schedulesFile, line)
		}
		out[line[:i]] = line[i+1:]
	}
	return out, sc.Err()
}

// writeSchedules records got, sorted.
func writeSchedules(got map[string]string) error {
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("# Digests of the full event traces of TestSchedule_SameSeedSameRun: fleet, seed, digest/lines.\n")
	b.WriteString("# Recorded with LOCKSTEP_RECORD_SCHEDULES=1 go test ./propertytests -run SameSeed\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %s\n", k, got[k])
	}
	return os.WriteFile(schedulesFile, []byte(b.String()), 0o644)
}

// firstDiff returns the number of the first line where a and b differ.
func firstDiff(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}

// sideBySide shows the lines around the first difference of a and b.
func sideBySide(a, b string) string {
	n := firstDiff(a, b) - 1
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	part := func(l []string) string {
		return strings.Join(l[max(0, n-10):min(len(l), n+10)], "\n")
	}
	return "first run:\n" + part(al) + "\n--- second run:\n" + part(bl)
}
