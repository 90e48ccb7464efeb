package model_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/model"
)

// The model is an in-memory Cassandra: cells with write timestamps, TTLs in
// whole seconds judged on the store's clock, tombstones that win timestamp
// ties. With a ManualClock, time moves only when the test says so.
func Example() {
	ctx := context.Background()
	clk := model.NewManualClock(model.DefaultStart)
	store := model.New(clk)

	now := clk.Now()
	_ = store.Put(ctx, "t", "row", lockstep.Cell{Column: "a", Value: []byte("x"), Timestamp: now, TTL: 2 * time.Second})
	_ = store.Put(ctx, "t", "row", lockstep.Cell{Column: "b", Value: []byte("y"), Timestamp: now})
	_ = store.Delete(ctx, "t", "row", now, "b") // same timestamp: the tombstone wins

	cells, _ := store.Read(ctx, "t", "row", lockstep.Slice{})
	fmt.Println(len(cells), cells[0].Column, cells[0].TTL)
	clk.Advance(2 * time.Second)
	cells, _ = store.Read(ctx, "t", "row", lockstep.Slice{})
	fmt.Println(len(cells), "cells after the TTL")
	// Output:
	// 1 a 2s
	// 0 cells after the TTL
}
