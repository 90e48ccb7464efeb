// Command lockctl is the operator's tool for lockstep on Cassandra: it
// creates the schema, shows what the store holds for a lock, shows the fleet
// census and the migration phase, moves the phase, runs a command while
// holding a lock, and, as a last resort, deletes a dead owner's cells.
//
// Usage:
//
//	lockctl [global flags] <command> [flags] [arguments]
//
//	schema apply [--replication K=V,...]  create the tables (and the keyspace, given a replication)
//	schema print [--replication K=V,...]  print the CQL that schema apply runs; needs no cluster
//	inspect [--full] <id>                 queue, owner and legacy cells of a lock: owners, ages, TTLs
//	fleet                                 the census: live processes, their modes and held locks
//	phase get                             the fleet's migration phase
//	phase set [--drain D] <mode>          move the phase one step towards legacy, combined or new
//	release --force [--yes] <id>          delete every cell of a lock (break-glass)
//	lock [--mode M] [--wait D] [--grace D] <id> -- <command> [args...]
//	                                      run a command while holding a lock (see below)
//	sessions --lockd URL,...              the sessions of lockd servers (see below); needs no cluster
//	view fleet|hot|sessions|deadlocks|charts --lockd URL,...
//	                                      a panel of lockd's web view (see below); needs no cluster
//	version                               lockctl's version and commit, the library's, and Go's
//	completion bash|zsh|fish|powershell   a shell completion script
//
// lockctl is a module of its own (cmd/lockctl/go.mod, replacing the library
// with ../..), so the library's go.mod carries none of its dependencies.
// Build it with go build -C cmd/lockctl -o lockctl . from the repository.
//
// # Why cobra
//
// The command line is built on github.com/spf13/cobra rather than kong. Both
// are well kept; cobra was chosen for what operators meet: it suggests the
// command meant when one is mistyped ("lockctl fleat" -> "Did you mean
// fleet?"), it generates completion scripts for bash, zsh, fish and
// PowerShell from the command tree, and it is the library of the tools the
// people running Cassandra fleets already use (kubectl, helm, etcdctl, the
// Kubernetes operators for Cassandra), so help, flag syntax (--flag=value,
// flags anywhere after the command) and completion behave as they expect.
// kong's struct-tag declarations are terser, but buy nothing here.
//
// # Connecting
//
// Global flags, accepted before or after the command; each not given on the
// command line is read from its environment variable (the flag wins):
//
//	--hosts h1,h2              LOCKSTEP_HOSTS, then CASSANDRA_HOSTS   contact points, host or host:port (default 127.0.0.1)
//	--port N                   LOCKSTEP_PORT                 native port for hosts given without one (default 9042)
//	--keyspace K               LOCKSTEP_KEYSPACE             the lock keyspace (default "locks")
//	--consistency C            LOCKSTEP_CONSISTENCY          read and write consistency (default QUORUM; ALL; LOCAL_QUORUM is refused, see cassandra.WithConsistency)
//	--local-dc DC              LOCKSTEP_LOCAL_DC             token-aware routing over DC-aware round robin in DC
//	--timeout D                LOCKSTEP_TIMEOUT              connect and per-request timeout (default 10s)
//	--username U               LOCKSTEP_USERNAME             PasswordAuthenticator user
//	--password-file F          LOCKSTEP_PASSWORD_FILE        file whose first line is the password
//	(no flag)                  LOCKSTEP_PASSWORD             the password itself
//	--tls                      LOCKSTEP_TLS=true             client-to-node TLS, verified against the system roots
//	--tls-ca F                 LOCKSTEP_TLS_CA               PEM CA bundle to verify the nodes
//	--tls-cert F, --tls-key F  LOCKSTEP_TLS_CERT, _KEY       client certificate and key (PEM)
//	--tls-server-name N        LOCKSTEP_TLS_SERVER_NAME      name to verify in the nodes' certificates
//	--tls-insecure-skip-verify LOCKSTEP_TLS_INSECURE_SKIP_VERIFY  no verification, with a warning on stderr
//	--output text|json         LOCKSTEP_OUTPUT               JSON from inspect, fleet and phase get
//	--table K=N                (none)                        use table N for the table whose default name is K
//	                                                         (repeatable; as schema.WithTables)
//
// The password is never a flag value: it would show in ps and in shell
// history. --password (and -password, --passwd) is refused with a usage
// error, before anything is parsed, so the value is not echoed. A password
// file, when named, wins over LOCKSTEP_PASSWORD; a user without a password,
// or a password without a user, is a usage error. Any --tls-* flag implies
// --tls; certificate verification is on unless --tls-insecure-skip-verify.
// TLS files are read before connecting, so a missing or malformed one is a
// usage error.
//
// A lock id that starts with "-" goes after "--": lockctl inspect -- -odd-id.
//
// # Exit codes
//
//	0  success
//	1  any other failure (a request failed, a release deleted only some cells)
//	2  usage error: unknown command or flag, bad value, bad arguments; nothing was done
//	3  the cluster cannot be reached, or refused the login or the TLS handshake
//	4  refused: a phase move the census forbids, release without --force,
//	   or a release not confirmed; lock: the lock is held (--wait 0) or
//	   --wait ran out, or the phase forbids --mode; nothing was changed
//	5  lock: the lock was lost while the command ran, and lockctl stopped it
//
// lock exits with its command's status when the command ran (128+N if
// signal N ended it), and with 128+N when signal N interrupted its wait for
// the lock; see lock below.
//
// Errors are one line on stderr saying what to check (for code 3: the hosts
// and port tried and --hosts/--port/--tls, or --username and
// LOCKSTEP_PASSWORD/--password-file, or --tls-ca/--tls-server-name); a
// missing keyspace or table names schema apply, a missing permission the
// grants; a mistyped command adds cobra's suggestions.
//
// # Data from others is escaped
//
// Owner ids, lock ids, session names, principals, process names, hosts and
// error messages come from the store or a lockd, written by others. In text
// output a value that holds a space, a double quote, a rune that is not
// printable (a control character such as a newline, CR, tab or ESC, DEL, a
// C1 control, a bidi override, a line separator) or bytes that are not UTF-8
// is printed quoted and escaped as Go's strconv.Quote does ("ops\n\x1b[2J");
// a bare "-" is quoted too, as the tables print - for none. A message (an
// error, a refusal's reason) keeps its spaces and has those runes escaped in
// place. So every table keeps one row per cell, process or session, and
// nothing printed moves the cursor or rewrites the screen. JSON output
// carries the values exactly, with every rune that is not printable written
// as a \uXXXX escape (encoding/json leaves DEL, C1 controls and bidi
// overrides raw).
//
// # JSON output
//
// With --output json, inspect, fleet, phase get, sessions and view print one
// JSON object (the other commands print text). Field names are stable: they may be
// added to, never renamed. Times are RFC 3339 UTC, TTLs seconds (0: none),
// empty lists [].
//
// A failure under --output json (or LOCKSTEP_OUTPUT=json), of any command,
// a refused command line included, is also one JSON object on stdout, so a
// pipeline into jq sees it; the exit code and the line on stderr are
// unchanged:
//
//	{"error": {"message": the stderr line, "kind": "usage"|"failed"|"unreachable"|"refused"|"lost"|"interrupted",
//	           "exit_code": 1-5, or 128+N for interrupted}}
//
// (lock's command writes to the same stdout; its own exit status is not a
// failure of lockctl and prints nothing.)
//
// phase get:
//
//	{"phase": "legacy"|"combined"|"new"|"pending:<from>-><to>", "mode": committed or left,
//	 "target": entered while pending else "", "pending": bool, "allows": [modes processes may lock in]}
//
// inspect <id>:
//
//	{"lock", "keyspace", "read_at", "consistency",
//	 "queue": {"table", "state": "free"|"held"|"contested", "holder" (when held),
//	           "owners": [cell], "queue": [cell] (line order), "floor": time or null,
//	           "floor_error" (when unreadable), "full_read": bool,
//	           "evidence": the highest fencing token a release recorded
//	           (queuelock.Options.Evidence; absent when none),
//	           "foreign": [{"column", "written"}]},
//	 "legacy": {"main_table", "shadow_table", "state": "free"|"held"|"blocked",
//	            "holder" (when held), "main": [lcell], "shadow": [lcell]}}
//	cell:  {"owner", "enqueued": time or null (a holder whose queue cell went with
//	        its first renewal), "written", "ttl_seconds", "access"}
//	lcell: {"owner", "written", "ttl_seconds"}
//
// fleet:
//
//	{"keyspace", "table", "read_at", "phase": <as phase get>,
//	 "processes": [{"process", "host", "version", "configured", "held": {mode: n},
//	                "acquiring": {mode: n}, "sent": time (the process's clock) or null,
//	                "ttl_seconds", "error" (an undecodable entry)}],
//	 "moves": [{"to", "blocked": bool, "blockers": [process ids], "reason" (when blocked)}]}
//
// sessions:
//
//	{"lockds": [{"url", "sessions": [{"session", "principal", "name", "ttl_seconds",
//	             "identity", "identity_sessions" (the session's identity and how many
//	             sessions share it: SetToken), "locks": [{"lock", "items": ["id:X|S|IS|IX|SIX"], "token" (0: none), "reentrant"}]}]}]}
//
// view <panel>:
//
//	{"lockds": [{"url", "principal", "open": bool (open mode), "at": time,
//	             <panel>: the lockd's answer (below)}]}
//	fleet:     {"phase", "description", "allows": [modes], "error" (when unreadable),
//	            "processes": [{"process", "host", "version", "configured", "held": {mode: n},
//	                           "acquiring": {mode: n}, "heartbeat_age_seconds", "ttl_seconds",
//	                           "self": bool (this lockd), "error"}],
//	            "moves": [{"to", "blocked": bool, "text" (the refusal, when blocked), "blockers": [process ids]}]}
//	hot:       {"ids": [{"id", "acquired", "contended" (5 min, through this lockd), "state": "free"|"held"|"contested",
//	                     "holders": [{"owner", "process", "access": X|S|IS|IX|SIX, "in_line_seconds" (null: unknown),
//	                                  "token" (0: none known), "session", "lock" (this lockd's, else "")}],
//	                     "waiters": [{"position", "owner" (the store's line) or "session" and "principal"
//	                                  (this lockd's Lock calls), "access", "waited_seconds", "comment"}],
//	                     "legacy" (the legacy rows, when held or blocked), "error"}], "error"}
//	sessions:  {"all": bool (list_sessions), "sessions": [{"session", "name", "principal", "ttl_seconds",
//	            "identity", "identity_sessions", "hidden_locks" (outside the prefixes),
//	            "locks": [{"lock", "items": [{"id", "access"}], "token"}]}]}
//	deadlocks: [{"at", "cycle": [{"process", "waits" (an id), "access", "held_by", "held_in", "comment"}]}]
//	           (newest first; the first member's Lock was failed)
//	charts:    [{"title", "unit", "from_unix", "max", "lines": [{"mode", "values": [one a second from from_unix]}]}]
//
// # sessions
//
// sessions asks each lockd named by --lockd (or LOCKSTEP_LOCKD_URL) for its
// live sessions: a lockd keeps them in memory, not in the cluster, and the
// census names lockd processes (fleet) but not their addresses. It calls
// ListSessions on Connect's JSON protocol (one POST; no RPC library in
// lockctl), with the bearer token in LOCKSTEP_LOCKD_TOKEN or the first line
// of --lockd-token-file, of a principal granted "list_sessions": true;
// --lockd-ca verifies https lockds. A lockd it cannot reach exits 3, a
// refusal 4; the others are listed first.
//
// # view
//
// view <panel> prints one panel of the web view of each lockd named (lockd
// --ui): GET /ui/api/<panel>, the data the page renders for the same
// principal, under the same grant ("web_view": true) and prefixes, with
// the token and CA flags of sessions. fleet is what lockctl fleet reads,
// as that lockd reads it, without a connection to the cluster; hot,
// deadlocks and charts exist only in that lockd's memory; sessions is the
// page's list (the principal's own, or every one with "list_sessions",
// locks outside its prefixes counted). A refusal exits 4, a lockd without
// --ui 1, one it cannot reach 3.
//
// # Progress
//
// phase set --drain D waits up to D for the processes that block the move;
// every 5 s it prints on stderr how long it has waited and which processes
// (with host and the modes they use) it still waits for.
//
// # lock
//
// lock <id> -- <command> [args...] runs the command while holding the lock
// <id>, as flock(1) and etcdctl lock do: no shell runs it, stdin, stdout and
// stderr are passed through, and the lock is released when the command
// exits. lockctl then exits with the command's status (128+N if signal N
// ended it). The -- is required, so that the command's own flags are never
// read as lockctl's; a command that cannot be found is refused (exit 2)
// before anything connects.
//
// The lock is taken through a migration.Locker, as every process of a
// migrating fleet takes its locks: the phase admits its mode, the census
// lists it while it waits and holds (its process id starts with
// "lockctl-"), and its fencing token is drawn from the global time table.
// Its mode:
//
//	--mode M   legacy, combined or new; refused (exit 4, nothing left
//	           behind) if the phase forbids M
//	(default)  the mode the phase calls for, as migration.PhaseFlag reads it:
//	           the phase's mode, combined while a move is pending or announced
//
// Following the phase is the default because that mode is always one the
// phase allows and the one a phase-following fleet uses, so a script that
// names no mode keeps working across every phase move; had --mode been
// required, every script would name a mode and fail (exit 4) at the next
// move that forbids it. --mode is for contending in one mode on purpose.
// The mode is chosen once, when lockctl starts waiting; the census shows
// it, so phase set waits for (or refuses beside) a lockctl lock as for any
// process.
//
//	--wait D   give up after D (exit 4); --wait 0 does not wait for a
//	           holder (TryLock): exit 4 at once if the lock is held;
//	           default: wait until interrupted
//	--grace D  how long the command has to exit after SIGTERM (or the
//	           forwarded signal) before SIGKILL (default 10s)
//
// The command's environment is lockctl's (LOCKSTEP_PASSWORD included, if
// set) plus:
//
//	LOCKSTEP_LOCK_ID        the lock id
//	LOCKSTEP_FENCING_TOKEN  the lock's fencing token, a decimal int64 that
//	                        grows from one owner of the lock to the next: hand
//	                        it to the resource the lock guards
//	LOCKSTEP_LOCK_OWNER     the owner id the lock's cells carry (inspect shows it)
//
// If the lock is lost while the command runs (no renewal succeeded within
// the lease window, or the census heartbeat lapsed), lockctl sends the
// command SIGTERM, and SIGKILL if it still runs after --grace, prints one
// line on stderr saying the lock was lost and how the command was stopped,
// and exits 5.
//
// On SIGINT or SIGTERM, lockctl forwards the signal to the command, waits
// for it to exit (SIGKILL after --grace), releases the lock and exits with
// the command's status. The command shares lockctl's process group, so that
// it may read the terminal; a Ctrl-C at the terminal therefore reaches it
// directly as well, and it may see SIGINT twice. Signals go to the
// command's process, not to processes it started. A signal that arrives
// while lockctl still waits for the lock ends the wait: exit 128+N, the
// command does not run.
//
// A release that fails after the command exited is a warning on stderr;
// the exit code stays the command's, and the cells expire within their TTL.
//
// The command's exit status may be 1 to 5 as well: lockctl's own codes
// always come with a "lockctl:" line on stderr (and, under --output json,
// a JSON error on stdout), the command's status with nothing from lockctl.
//
// lock uses the library's defaults where it has no flag: cells with a TTL
// of 30 s, and flat ids. In phases that allow legacy the legacy fleet's TTL
// must be the same, as shadowlock requires (and schema apply --legacy-ttl,
// if given, at least 30s); in a fleet whose Lockers set Options.Separator,
// a lock here on "a/b" takes no intention lock on "a", so it excludes only
// other locks on "a/b".
//
// # release --force
//
// The lock algorithms never delete another owner's cell; release --force
// does, for an owner known to be dead whose cells would otherwise block the
// lock until their TTL expires. It lists the cells it is about to delete and
// asks for confirmation on stdin (unless --yes), then deletes each cell with
// a tombstone carrying exactly the cell's own write timestamp, logging every
// deletion on stderr. A tombstone wins a timestamp tie, so this removes the
// write that was read and nothing newer: if the owner is in fact alive, its
// next renewal writes the cell back and inspect shows it again. That is
// evidence, not protection — between the deletion and that renewal another
// process may acquire the lock while the old owner still works. Never use it
// on an owner that may be alive.
//
// lockctl sits at the top of the dependency graph: it composes package
// cassandra (the Store), schema, migration (census, phase, and the Locker
// lock takes its lock with), clock (the global time table that fences it)
// and the storage formats of queuelock and shadowlock. It is one of the few packages
// allowed to import gocql.
package main
