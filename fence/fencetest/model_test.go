package fencetest_test

import (
	"testing"

	"github.com/lockstep-go/lockstep/fence"
	"github.com/lockstep-go/lockstep/fence/fencetest"
	"github.com/lockstep-go/lockstep/model"
)

var _ fence.Store = (*model.FenceStore)(nil)

func TestModel(t *testing.T) {
	store := model.NewFenceStore()
	fencetest.Run(t, func(t *testing.T) fencetest.Harness {
		return fencetest.Harness{Store: store, Table: fence.DefaultTable}
	})
}
