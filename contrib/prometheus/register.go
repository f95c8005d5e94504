package prometheus

import (
	"errors"
	"fmt"

	prom "github.com/prometheus/client_golang/prometheus"
)

// alphaHelp prefixes help as component-base renders alpha metrics.
func alphaHelp(help string) string { return "[ALPHA] " + help }

// register registers c on reg. If reg already holds an equal collector (a
// second provider on the same registry), that collector is returned
// instead, so every provider on one registry writes the same series.
func register[C prom.Collector](reg prom.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var are prom.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	var zero C
	return zero, fmt.Errorf("registering fanout metric: %w", err)
}

// errNilRegisterer is returned for a nil Registerer.
var errNilRegisterer = errors.New("prometheus registerer must not be nil; use prometheus.DefaultRegisterer for the global registry")
