package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestOptionsRejectBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--minutes", "0"},
		{"--fleets", "new,nope"},
		{"--kinds", "isolate,earthquake"},
		{"--ttl", "1500ms"},
		{"--workers", "1"},
		{"--manager-share", "1.5"},
		{"--manager-share", "-0.1"},
		{"--skew-sweep", "3s"},
		{"--dcs", "3"},
		{"--fleets", "dc-scopes"},
		{"--kinds", "dc-partition"},
		{"--skew-sweep", "3s:-1s"},
		{"stray"},
	} {
		if _, err := parseOptions(args, io.Discard); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

func TestLengthsFollowWeightsAndRefuseTooShort(t *testing.T) {
	o, err := parseOptions([]string{"--minutes", "6.5", "--seed", "14"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{o: o}
	segs := r.segments()
	if len(segs) != len(fleets)+len(controls)-2 {
		t.Fatalf("%d segments, want every fleet and control but the two of two data centres", len(segs))
	}
	for _, s := range segs {
		if s.dcs {
			t.Errorf("segment %s of two data centres on one", s.name)
		}
	}
	if err := r.checkLengths(segs); err != nil {
		t.Fatal(err)
	}
	lengths, windows := r.lengths(segs)
	var total time.Duration
	for i, l := range lengths {
		if segs[i].length == 0 { // a fixed length is outside --minutes
			total += l
		}
		if windows[i] >= l {
			t.Errorf("%s: window %v not shorter than its length %v", segs[i].name, windows[i], l)
		}
	}
	if d := total - 390*time.Second; d < -5*time.Second || d > 5*time.Second {
		t.Errorf("segments add up to %v, want about 6.5 minutes", total)
	}
	r.o.minutes = 1
	if err := r.checkLengths(segs); err == nil || !strings.Contains(err.Error(), "give more minutes") {
		t.Errorf("1 minute for 9 segments: %v", err)
	}
}

func TestSweepSegments(t *testing.T) {
	segs, err := parseSweep(DefaultSweep)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 8 {
		t.Fatalf("%d sweep segments, want 8", len(segs))
	}
	for _, s := range segs {
		if s.skew <= 0 || s.ttl < 3*time.Second || s.length < 4*s.ttl || !s.control || s.hold != s.ttl {
			t.Errorf("sweep segment %+v", s)
		}
	}
}
