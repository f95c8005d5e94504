package debugpage

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/kfanout/fanout/informer"
)

// Snapshot is what the page shows, and what "?format=json" returns.
type Snapshot struct {
	// Time is when the figures were read, on Options.Clock.
	Time time.Time `json:"time"`
	// BehindAfterSeconds is Options.BehindAfter.
	BehindAfterSeconds float64 `json:"behindAfterSeconds"`
	// SampleIntervalSeconds is Options.SampleInterval.
	SampleIntervalSeconds float64 `json:"sampleIntervalSeconds"`
	// Informers are the registered informers, sorted by name.
	Informers []InformerView `json:"informers"`
}

// InformerView is one registered informer.
type InformerView struct {
	// Name is the name it was registered under.
	Name string `json:"name"`
	// Resource is its group/version/resource when its Identifier names
	// one, otherwise its object type.
	Resource string `json:"resource"`
	// ObjectType is the Go type of its objects, e.g. "*v1.Pod".
	ObjectType string `json:"objectType"`
	// Synced is HasSynced.
	Synced bool `json:"synced"`
	// SyncState is its SyncStatus's State ("Synced", "ListFailing"...),
	// and NotSyncedReason the status in words; empty once synced.
	SyncState       string `json:"syncState"`
	NotSyncedReason string `json:"notSyncedReason,omitempty"`
	// StoreSize is the number of objects in its cache.
	StoreSize int `json:"storeSize"`
	// QueueDepth is the number of entries in its queue; -1 when unknown
	// (before Run, or QueueBusy).
	QueueDepth int `json:"queueDepth"`
	// QueueBusy is true when the queue's consumer held its lock while the
	// depth was read.
	QueueBusy bool `json:"queueBusy"`
	// LastResourceVersion is LastSyncResourceVersion.
	LastResourceVersion string `json:"lastResourceVersion"`
	// WatchRestarts is the number of watch streams opened after the first.
	WatchRestarts uint64 `json:"watchRestarts"`
	// IndexRefusals is the number of writes to its cache that an index
	// function refused, and LastIndexRefusal the newest (nil: none).
	IndexRefusals    uint64            `json:"indexRefusals"`
	LastIndexRefusal *IndexRefusalView `json:"lastIndexRefusal,omitempty"`
	// Handlers are its handler registrations, in the order they were
	// added.
	Handlers []HandlerView `json:"handlers"`
}

// IndexRefusalView is a write that an index function refused.
type IndexRefusalView struct {
	// Key is the object's key and Index the refusing index's name.
	Key   string `json:"key"`
	Index string `json:"index"`
	// Error is the index function's error.
	Error string `json:"error"`
	// Time is when the write was refused.
	Time time.Time `json:"time"`
}

// HandlerView is one handler registration.
type HandlerView struct {
	// Name is HandlerOptions.Name or the name derived from the handler.
	Name string `json:"name"`
	// Engine is the listener engine: "direct" or "classic".
	Engine string `json:"engine"`
	// Overflow is the overflow policy: "Grow", "Coalesce" or "Block".
	Overflow string `json:"overflow"`
	// MaxPending is the overflow threshold; 0 means none.
	MaxPending int `json:"maxPending"`
	// Workers is the number of goroutines that call the handler.
	Workers int `json:"workers"`
	// Synced is the registration's HasSynced.
	Synced bool `json:"synced"`
	// SyncState and NotSyncedReason are the registration's SyncStatus,
	// as for the informer.
	SyncState       string `json:"syncState"`
	NotSyncedReason string `json:"notSyncedReason,omitempty"`
	// Pending, HighWater, Delivered, Coalesced and Panics are the
	// registration's Stats.
	Pending   int64  `json:"pending"`
	HighWater int64  `json:"highWater"`
	Delivered uint64 `json:"delivered"`
	Coalesced uint64 `json:"coalesced"`
	Panics    uint64 `json:"panics"`
	// DeliveredPerSecond is the rate of handler calls between the two
	// newest samples; 0 with fewer than two.
	DeliveredPerSecond float64 `json:"deliveredPerSecond"`
	// OldestPendingAgeSeconds is Stats.OldestPendingAge.
	OldestPendingAgeSeconds float64 `json:"oldestPendingAgeSeconds"`
	// Behind is true when OldestPendingAge is over Options.BehindAfter.
	Behind bool `json:"behind"`
	// Backlog is the sampled Pending, oldest first.
	Backlog []BacklogPoint `json:"backlog"`

	// Sparkline is Backlog drawn for the HTML page; not in the JSON.
	Sparkline sparkline `json:"-"`
}

// BacklogPoint is one sample of a handler's Pending.
type BacklogPoint struct {
	Time    time.Time `json:"time"`
	Pending int64     `json:"pending"`
}

// snapshot reads the figures and builds the Snapshot. With lazy, it also
// records them as a sample when the newest sample is older than
// Options.SampleInterval.
func (p *Page) snapshot(lazy bool) Snapshot {
	rs := p.read()
	now := p.opts.Clock.Now()
	p.mu.Lock()
	if lazy && (p.lastSample.IsZero() || now.Sub(p.lastSample) >= p.opts.SampleInterval) {
		p.recordLocked(now, rs)
	}
	hist := make(map[handlerKey][]sample, len(p.history))
	for k, r := range p.history {
		hist[k] = r.all()
	}
	p.mu.Unlock()

	snap := Snapshot{
		Time:                  now,
		BehindAfterSeconds:    p.opts.BehindAfter.Seconds(),
		SampleIntervalSeconds: p.opts.SampleInterval.Seconds(),
		Informers:             make([]InformerView, 0, len(rs)),
	}
	for _, r := range rs {
		iv := InformerView{
			Name:                r.name,
			Resource:            r.stats.Resource,
			ObjectType:          r.stats.ObjectType,
			Synced:              r.stats.Synced,
			StoreSize:           r.stats.StoreSize,
			QueueDepth:          r.stats.QueueDepth,
			QueueBusy:           r.stats.QueueBusy,
			LastResourceVersion: r.stats.LastSyncResourceVersion,
			WatchRestarts:       max(r.stats.WatchesStarted, 1) - 1,
			IndexRefusals:       r.stats.IndexRefusals,
			Handlers:            make([]HandlerView, 0, len(r.handlers)),
		}
		iv.SyncState, iv.NotSyncedReason = syncView(r.sync)
		if iv.Resource == "" {
			iv.Resource = r.stats.ObjectType
		}
		if last := r.stats.LastIndexRefusal; last != nil {
			iv.LastIndexRefusal = &IndexRefusalView{Key: last.Key, Index: last.Index, Error: fmt.Sprint(last.Err), Time: last.Time}
		}
		for _, h := range r.handlers {
			st := h.Stats
			hv := HandlerView{
				Name:                    h.Name,
				Engine:                  h.Config.Engine.String(),
				Overflow:                h.Config.Overflow.String(),
				MaxPending:              h.Config.MaxPending,
				Workers:                 h.Config.Workers,
				Synced:                  h.Synced,
				Pending:                 st.Pending,
				HighWater:               st.HighWater,
				Delivered:               st.Delivered,
				Coalesced:               st.Coalesced,
				Panics:                  st.Panics,
				OldestPendingAgeSeconds: st.OldestPendingAge.Seconds(),
				Behind:                  st.OldestPendingAge > p.opts.BehindAfter,
			}
			if hs, ok := r.sync.Handler(h.Registration); ok {
				hv.SyncState, hv.NotSyncedReason = syncView(hs)
			}
			samples := hist[handlerKey{r.name, h.Registration}]
			hv.Backlog = make([]BacklogPoint, len(samples))
			for i, s := range samples {
				hv.Backlog[i] = BacklogPoint{Time: s.at, Pending: s.pending}
			}
			hv.DeliveredPerSecond = deliveryRate(samples)
			hv.Sparkline = newSparkline(samples, p.opts.Samples)
			iv.Handlers = append(iv.Handlers, hv)
		}
		snap.Informers = append(snap.Informers, iv)
	}
	return snap
}

// syncView is a SyncStatus's state, and its description unless synced.
func syncView(st informer.SyncStatus) (state, reason string) {
	if st.Synced() || st.State == "" {
		return string(st.State), ""
	}
	st.Handlers = nil // each handler has its own row
	return string(st.State), st.String()
}

// deliveryRate is the rate of handler calls between the two newest
// samples; 0 with fewer than two, or when they were taken at one time.
func deliveryRate(s []sample) float64 {
	if len(s) < 2 {
		return 0
	}
	a, b := s[len(s)-2], s[len(s)-1]
	dt := b.at.Sub(a.at).Seconds()
	if dt <= 0 || b.delivered < a.delivered {
		return 0
	}
	return float64(b.delivered-a.delivered) / dt
}

// writeJSON writes snap as indented JSON.
func writeJSON(w http.ResponseWriter, snap Snapshot) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(snap) // the client went away
}
