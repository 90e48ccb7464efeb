package openfeature

import (
	"context"
	"fmt"
	"strings"

	of "github.com/open-feature/go-sdk/openfeature"

	"github.com/lockstep-go/lockstep"
	"github.com/lockstep-go/lockstep/migration"
)

// DefaultKey is the flag key used when Options.Key is empty.
const DefaultKey = "lockstep-mode"

// Evaluator is the part of an OpenFeature client a Flag uses;
// *openfeature.Client implements it.
type Evaluator interface {
	StringValueDetails(ctx context.Context, flag string, defaultValue string, evalCtx of.EvaluationContext, options ...of.Option) (of.StringEvaluationDetails, error)
}

// Options configure a Flag. The zero value of every field means its default;
// a nil *Options means all defaults.
type Options struct {
	// Key is the flag's key. Default DefaultKey ("lockstep-mode").
	Key string
	// Default is the mode answered when the flag evaluates, without error,
	// to the SDK's default value (a disabled flag). It is never answered
	// after an error. Default lockstep.ModeUnknown: such an evaluation is an
	// error too.
	Default lockstep.Mode
	// EvaluationContext is passed to every evaluation, e.g.
	// openfeature.NewTargetlessEvaluationContext(map[string]any{"service": "billing"})
	// or a context whose targeting key is the process id. Default empty.
	EvaluationContext of.EvaluationContext
}

// Flag is a migration.FlagSource backed by an OpenFeature string flag. Safe
// for concurrent use (as the OpenFeature client is).
type Flag struct {
	client  Evaluator
	key     string
	def     lockstep.Mode
	defText string
	evalCtx of.EvaluationContext
}

var _ migration.FlagSource = (*Flag)(nil)

// New returns a Flag evaluating opts.Key through client. A nil client, or a
// Default that is neither ModeUnknown nor a valid mode, returns an error
// wrapping lockstep.ErrInvalidConfig.
func New(client Evaluator, opts *Options) (*Flag, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if client == nil {
		return nil, &lockstep.ConfigError{Field: "client", Reason: "nil OpenFeature client: pass openfeature.NewClient(...) after setting a provider"}
	}
	if o.Key == "" {
		o.Key = DefaultKey
	}
	f := &Flag{client: client, key: o.Key, def: o.Default, evalCtx: o.EvaluationContext}
	if o.Default != lockstep.ModeUnknown {
		if !o.Default.Valid() {
			return nil, &lockstep.ConfigError{Field: "Default", Reason: fmt.Sprintf("%v is not a mode: use lockstep.ModeLegacy, ModeCombined or ModeNew, or leave it unset", o.Default)}
		}
		f.defText = o.Default.String()
	}
	return f, nil
}

// Key returns the flag key the Flag evaluates.
func (f *Flag) Key() string { return f.key }

// Mode evaluates the flag and parses its value. ctx is passed to the
// evaluation (and so bounds a provider's remote call). A failed evaluation
// returns an error naming the flag and the SDK's error code; a value that is
// not a mode returns an error wrapping lockstep.ErrInvalidMode.
func (f *Flag) Mode(ctx context.Context) (lockstep.Mode, error) {
	d, err := f.client.StringValueDetails(ctx, f.key, f.defText, f.evalCtx)
	if err != nil {
		code := d.ErrorCode
		if code == "" {
			code = of.GeneralCode
		}
		return lockstep.ModeUnknown, fmt.Errorf("openfeature flag %q: evaluation failed (%s): %w; %s",
			f.key, code, err, advice(code))
	}
	if f.defText == "" && strings.TrimSpace(d.Value) == "" {
		return lockstep.ModeUnknown, fmt.Errorf("openfeature flag %q: %w: no value (reason %s); give the flag a variant legacy, combined or new, or set Options.Default",
			f.key, lockstep.ErrInvalidMode, d.Reason)
	}
	m, err := lockstep.ParseMode(d.Value)
	if err != nil {
		return lockstep.ModeUnknown, fmt.Errorf("openfeature flag %q (variant %q, reason %s): %w", f.key, d.Variant, d.Reason, err)
	}
	return m, nil
}

// advice says what to do about an evaluation error code.
func advice(code of.ErrorCode) string {
	switch code {
	case of.FlagNotFoundCode:
		return "create it as a string flag with variants legacy, combined and new, or set Options.Key to the flag's key"
	case of.TypeMismatchCode:
		return "the flag must be a string flag with variants legacy, combined and new"
	case of.ProviderNotReadyCode:
		return "the provider is not ready yet: set it with openfeature.SetProviderAndWait before taking locks"
	case of.ProviderFatalCode:
		return "the provider failed for good: check its configuration and restart it"
	}
	return "a migration.Locker keeps the last good mode for Options.FlagStaleFor, then takes no lock until the flag evaluates"
}
