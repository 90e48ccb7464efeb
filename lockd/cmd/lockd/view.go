package main

import (
	"net/http"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/lockd"
)

// newRecorder returns the Recorder of lockd's Locker events the web view
// draws from, or nil (no Observer) when --ui is off.
func newRecorder(on bool) *lockd.Recorder {
	if !on {
		return nil
	}
	return lockd.NewRecorder(nil)
}

// withView serves the web view at lockd.ViewPath beside h when rec is set
// (--ui): it reads store and the Server's sessions, and writes nothing.
func withView(h http.Handler, srv *lockd.Server, store lockstep.Store, rec *lockd.Recorder) (http.Handler, error) {
	if rec == nil {
		return h, nil
	}
	v, err := srv.View(&lockd.ViewOptions{Store: store, Recorder: rec})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(lockd.ViewPath, v)
	mux.Handle("/", h)
	return mux, nil
}
