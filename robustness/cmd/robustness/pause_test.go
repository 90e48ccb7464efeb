package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lockstep-go/lockstep/robustness/register"
)

func TestJustReadPicksWorkersBetweenReadAndWrite(t *testing.T) {
	ops := []register.Op{
		{Process: "a", Kind: register.ReadFenced},
		{Process: "a", Kind: register.ReadCounter},
		{Process: "b", Kind: register.ReadCounter},
		{Process: "b", Kind: register.WriteFenced},
		{Process: "c", Kind: register.ReadCounter},
	}
	got := justRead(ops)
	if !got["a"] || got["b"] || !got["c"] || len(got) != 2 {
		t.Fatalf("justRead = %v, want a and c", got)
	}
}

func TestHoldingReadsTheLastLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.jsonl")
	write := func(s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"process":"w","lock":"lock-0","op":"release","outcome":"ok"}` + "\n" + `{"process":"w","lock":"lock-1","op":"acquire","outcome":"ok"}` + "\n")
	if !holding(p) {
		t.Error("a history ending in a successful acquire is not holding")
	}
	write(`{"process":"w","lock":"lock-1","op":"acquire","outcome":"ok"}` + "\n" + `{"process":"w","lock":"lock-1","op":"release","outcome":"ok"}` + "\n")
	if holding(p) {
		t.Error("a history ending in a release is holding")
	}
	if holding(filepath.Join(t.TempDir(), "none.jsonl")) {
		t.Error("a missing history is holding")
	}
}
