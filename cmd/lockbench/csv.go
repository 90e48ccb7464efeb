package main

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"
)

// seedCSVHeader names the columns of writeSeedCSV: one row per run, the
// figures of the Details table in plain units (milliseconds, seconds).
var seedCSVHeader = []string{
	"algorithm", "processes", "acquisitions",
	"mean_ms", "p50_ms", "p99_ms", "max_ms", "max_over_mean", "jain",
	"rt_per_acquire", "rt_per_release", "background_requests", "elapsed_s",
}

// writeSeedCSV writes the runs' statistics as CSV with seedCSVHeader.
func writeSeedCSV(w io.Writer, runs []run) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(seedCSVHeader); err != nil {
		return err
	}
	msf := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
	}
	f := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	for _, r := range runs {
		s := summarize(r)
		if err := cw.Write([]string{
			string(r.algorithm), strconv.Itoa(r.processes), strconv.Itoa(s.n),
			msf(s.mean), msf(s.p50), msf(s.p99), msf(s.max), f(s.ratio(), 3), f(s.jain, 4),
			f(s.rtAcquire, 3), f(s.rtRelease, 3), strconv.FormatInt(s.background, 10), f(r.elapsed.Seconds(), 3),
		}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
