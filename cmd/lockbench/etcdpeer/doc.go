// Command etcdpeer is lockbench's etcd contender: one OS process holding one
// etcd concurrency.Session and taking one hot lock id, timed the way
// lockbench times its own workers, with one of three algorithms (the job's
// "algorithm"):
//
//	etcd          the client-side concurrency.Mutex, unmodified (etcdlock.go)
//	etcd-lock     etcd's lock service, the v3lock Lock and Unlock RPCs that
//	              `etcdctl lock` calls, under the session's lease
//	              (etcdlockservice.go)
//	etcd-nextrev  the Mutex's queue, keys and lease, its waiter watching
//	              the predecessor from the server's next revision
//	              (etcdnextrev.go)
//
// After its loop a worker times 100 plain requests (a linearizable Get of
// one key), reported as the result's "plain".
//
// # The 100 ms floor of etcd's Mutex and lock service
//
// A contended Mutex.Lock waits for its predecessor's key to go with
// waitDelete (etcd's concurrency/key.go), a watch from the revision of the
// read that found the key: the server's current revision, or one below it.
// etcd's watchable store (mvcc/watchable_store.go) puts a watcher whose
// start revision is at or below its current revision among the unsynced
// ones, which syncWatchersLoop catches up every 100 ms; only a watcher
// starting above it is synced and gets each event as its write commits. So
// the waiter learns of the release at that loop's next pass. On a hot lock
// every waiter enqueues just after its own release, its watch goes unsynced,
// and each pass of the loop lets every client through once: Lock p50 ≈ 100
// ms and throughput ≈ clients / 100 ms, whatever the handoff costs. The lock
// service is the same Mutex run inside the server (v3lock's Lock calls
// concurrency.NewMutex(…).Lock), so no client can change its wait; the
// server has no setting for the loop's period (etcd 3.4's only watch flag,
// --experimental-watch-progress-notify-interval, paces progress
// notifications to synced watchers and leaves it unchanged). etcd-nextrev
// is the client-side fix: the same queue and safety argument, without the
// wait (etcdnextrev.go). etcdpeer -watch-delay shows the cause directly:
//
//	etcdpeer -watch-delay 127.0.0.1:2379 [-rounds 50]
//
// times a watch's DELETE event from the read's revision and from the next,
// and counts the watches the server reported as unsynced when opened.
//
// It is a module of its own so that the etcd client and what it pulls in
// (grpc, protobuf, zap, …) stay out of the lockstep module's go.mod, and so
// out of the module graph of every user of the library. What it shares with
// lockbench and the lockd peer — the worker protocol's JSON, the
// acquisition loop and its clock — is cmd/lockbench/peer, which
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
