// Package openfeature is a migration.FlagSource that reads the lock mode from
// a feature flag through an OpenFeature client
// (github.com/open-feature/go-sdk), so the flag that moves a fleet from the
// legacy lock to the queue lock can live in whatever flag service the
// company already runs (flagd, LaunchDarkly, Unleash, ... behind their
// OpenFeature providers). It is a module of its own, so a service that does
// not use OpenFeature never pulls the SDK through lockstep.
//
//	flag, err := openfeature.New(client, &openfeature.Options{Key: "lockstep-mode"})
//	locker, err := migration.New(store, flag, nil)
//
// # The flag
//
// A string flag whose variants are "legacy", "combined" and "new" (case and
// surrounding white space ignored, as lockstep.ParseMode reads them). The
// Locker evaluates it once per Lock or TryLock and its census heartbeat
// periodically; a flip takes effect on the next acquisition, and a lock keeps
// the mode it was taken in. Targeting works as the provider allows:
// Options.EvaluationContext may carry a targeting key (the process id, say)
// for a percentage rollout from legacy to combined. The flag is never trusted
// for safety: every answer goes through the Locker's census and phase guard,
// which refuses a mode the fleet's phase forbids (package migration).
//
// # Failures
//
// An evaluation the SDK reports as failed (provider not ready or in error,
// flag not found, type mismatch, a hook's error) returns an error naming the
// flag key and the error code, wrapping the SDK's error; a value that is not
// a mode returns an error wrapping lockstep.ErrInvalidMode. A migration.Locker
// answers such an error with the flag's last good mode for
// migration.Options.FlagStaleFor (30s by default, with a Warn), and after that
// fails the acquisition, leaving nothing behind; the metrics adapters count
// the failures as result flag_error. The SDK's default value is never taken
// for an answer after an error: a fleet must not change mode because its flag
// service is down.
//
// A flag that evaluates without error to the default value (a disabled flag:
// reason DISABLED) answers Options.Default if set, and is an error otherwise.
package openfeature
