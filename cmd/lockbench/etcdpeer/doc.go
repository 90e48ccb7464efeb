// Command etcdpeer is lockbench's etcd contender: one OS process holding one
// etcd concurrency.Session and taking one hot lock id, timed the way
// lockbench times its own workers, with one of two algorithms (the job's
// "algorithm"): etcd, the client-side concurrency.Mutex (etcdlock.go), or
// etcd-lock, etcd's lock service — the v3lock Lock and Unlock RPCs that
// `etcdctl lock` calls, under the session's lease (etcdlockservice.go).
// After its loop a worker times 100 plain requests (a linearizable Get of
// one key), reported as the result's "plain".
//
// It is a module of its own so that the etcd client and what it pulls in
// (grpc, protobuf, zap, …) stay out of the lockstep module's go.mod, and so
// out of the module graph of every user of the library. What it shares with
// lockbench and the lockd peer — the worker protocol's JSON, the
// acquisition loop and its clock — is cmd/lockbench/internal/peer, which
// imports only the standard library (lockbench's own side is
// cmd/lockbench/worker.go and contend.go; change them together).
//
// lockbench builds it (go build in this directory) when a real-backend run
// includes the etcd algorithm and runs one etcdpeer process per contender in
// place of its own -worker process:
//
//	etcdpeer -worker '{"process":"…","etcd":["127.0.0.1:2379"],"lock_id":"…","k":0,"hold":1000000}'
//
// The protocol on stdin and stdout, one JSON line at a time, is lockbench's:
//
//	worker → parent  {"ready":true}            connected, session open, warmed up
//	parent → worker  {"start":…,"until":…}     once every worker is ready
//	worker → parent  {"result":{…}}            or {"error":"…"}
//
// start and until are wall-clock microseconds since the Unix epoch; the
// result's durations are nanoseconds since start.
package main
