// Package prommetrics publishes a sharded informer's figures
// (sharding.Metrics) on github.com/prometheus/client_golang, named as
// contrib/prometheus names fanout's informer metrics: an "informer_" prefix
// and alpha help texts ("[ALPHA] ...", as component-base renders them).
package prommetrics

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/kfanout/fanout/contrib/sharding"
)

// Metric and label names.
const (
	MetricOwnedRanges    = "informer_sharding_owned_ranges"
	MetricRangeObjects   = "informer_sharding_range_objects"
	MetricHandover       = "informer_sharding_handover_duration_seconds"
	MetricClientFiltered = "informer_sharding_client_filtered_total"
	LabelRing            = "ring"
	LabelRange           = "range"
	alphaPrefix          = "[ALPHA] "
	handoverBucketStart  = 0.01
	handoverBucketFactor = 2
	handoverBucketCount  = 14
)

// Metrics is a sharding.Metrics on client_golang, for one replica's ring.
type Metrics struct {
	ring     string
	owned    *prom.GaugeVec
	objects  *prom.GaugeVec
	handover *prom.HistogramVec
	filtered *prom.CounterVec
}

var _ sharding.Metrics = (*Metrics)(nil)

// New registers the metrics of ring on reg. Handover durations go in
// exponential buckets from 10 ms to about 80 s.
func New(reg prom.Registerer, ring string) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("prommetrics: nil Registerer")
	}
	m := &Metrics{
		ring: ring,
		owned: prom.NewGaugeVec(prom.GaugeOpts{Name: MetricOwnedRanges,
			Help: alphaPrefix + "Number of hash ranges this replica delivers."}, []string{LabelRing}),
		objects: prom.NewGaugeVec(prom.GaugeOpts{Name: MetricRangeObjects,
			Help: alphaPrefix + "Number of objects in an owned range's store."}, []string{LabelRing, LabelRange}),
		handover: prom.NewHistogramVec(prom.HistogramOpts{Name: MetricHandover,
			Help:    alphaPrefix + "Time from stopping delivery of a range to releasing its claim.",
			Buckets: prom.ExponentialBuckets(handoverBucketStart, handoverBucketFactor, handoverBucketCount)}, []string{LabelRing}),
		filtered: prom.NewCounterVec(prom.CounterOpts{Name: MetricClientFiltered,
			Help: alphaPrefix + "Objects and watch events of other ranges dropped on the client because the server does not shard."}, []string{LabelRing, LabelRange}),
	}
	for _, c := range []prom.Collector{m.owned, m.objects, m.handover, m.filtered} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("prommetrics: %w", err)
		}
	}
	return m, nil
}

// OwnedRanges sets the owned-ranges gauge.
func (m *Metrics) OwnedRanges(n int) { m.owned.WithLabelValues(m.ring).Set(float64(n)) }

// Handover observes one handover.
func (m *Metrics) Handover(_ sharding.Range, d time.Duration) {
	m.handover.WithLabelValues(m.ring).Observe(d.Seconds())
}

// RangeObjects sets range r's object gauge; 0 deletes the series (the
// range was dropped or is empty).
func (m *Metrics) RangeObjects(r sharding.Range, n int) {
	if n == 0 {
		m.objects.DeleteLabelValues(m.ring, strconv.Itoa(r.Index))
		return
	}
	m.objects.WithLabelValues(m.ring, strconv.Itoa(r.Index)).Set(float64(n))
}

// ClientFiltered counts n dropped objects of range r.
func (m *Metrics) ClientFiltered(r sharding.Range, n int) {
	m.filtered.WithLabelValues(m.ring, strconv.Itoa(r.Index)).Add(float64(n))
}
