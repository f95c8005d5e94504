package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kfanout/fanout/contrib/sharding"
	"github.com/kfanout/fanout/informer"
)

// The sharded group of the soak: soakShardReplicas in-process replicas of
// one ring of contrib/sharding over the main group's objects, each a
// subject of its own ("main/shard-<i>") with a permanent Grow handler.
// Their leases live on the main apiserver (through the admin client), so
// the apiserver and etcd faults also take their claims away: a replica
// that cannot renew stops its ranges (forced), and another one, or itself,
// takes them over once the claims expire.
const (
	soakShardReplicas = 3
	soakShardRanges   = 8
	soakShardLease    = 6 * time.Second
	soakShardRenew    = 3 * time.Second
	soakShardRetry    = time.Second
)

// soakShardGroup is the sharded group's replicas. At a quiescent point
// they are checked together (check): their stores partition the server's
// objects (every object in exactly one store, at the server's resource
// version), and every synced handler of a replica was told exactly that
// replica's store. At the end, the deliveries of the replicas' permanent
// handlers and their range starts and stops are replayed in time order
// (replayReplicas) to check that no replica delivered an object while
// another held it, but for the documented in-flight call at a forced stop.
type soakShardGroup struct {
	replicas []*soakSubject
	// traces are the replicas' deliveries and range starts and stops, as
	// the shardreplica processes of the sharding tests print them.
	traces []*replicaProc
}

// soakTracedTarget records the range starts and stops the Coordinator asks
// of a replica.
type soakTracedTarget struct {
	*sharding.ShardedInformer
	trace *replicaProc
}

func (t soakTracedTarget) StartRange(ctx context.Context, r sharding.Range) {
	t.trace.record(replicaLine{K: "start", Range: r.Index})
	t.ShardedInformer.StartRange(ctx, r)
}

func (t soakTracedTarget) StopRange(ctx context.Context, r sharding.Range, graceful bool) {
	t.ShardedInformer.StopRange(ctx, r, graceful)
	t.trace.record(replicaLine{K: "stopped", Range: r.Index, Graceful: graceful})
}

// record appends l, timed now, to p's lines.
func (p *replicaProc) record(l replicaLine) {
	l.T, l.replica = time.Now().UnixNano(), p.id
	p.mu.Lock()
	p.lines = append(p.lines, l)
	p.mu.Unlock()
}

// soakTracingHandler records every call of a replica's permanent handler
// for the replay, then passes it on.
type soakTracingHandler struct {
	trace *replicaProc
	next  informer.ResourceEventHandler
}

func (h soakTracingHandler) note(kind string, obj any) {
	if d, ok := informer.AsDeletedFinalStateUnknown(obj); ok {
		obj, kind = d.Obj, "gone"
	}
	cm := obj.(*corev1.ConfigMap)
	hash, _ := sharding.HashObject(sharding.KeyUID, cm)
	h.trace.record(replicaLine{K: kind, N: soakShardIdentity(cm), RV: cm.ResourceVersion, Range: sharding.RangeIndex(hash, soakShardRanges)})
}

// soakShardIdentity names an object in the replay: the ring shards by UID,
// so a ConfigMap deleted and created again under its name is another
// object, likely in another range, whose add may reach its new owner
// before the old owner's delete of the first one.
func soakShardIdentity(cm *corev1.ConfigMap) string {
	return cmKey(cm) + " (uid " + string(cm.UID) + ")"
}

func (h soakTracingHandler) OnAdd(obj any, initial bool) {
	h.note("add", obj)
	h.next.OnAdd(obj, initial)
}

func (h soakTracingHandler) OnUpdate(oldObj, newObj any) {
	h.note("update", newObj)
	h.next.OnUpdate(oldObj, newObj)
}

func (h soakTracingHandler) OnDelete(obj any) {
	h.note("delete", obj)
	h.next.OnDelete(obj)
}

// newSoakSharded returns the sharded group's replicas as subjects of g,
// each with its permanent Grow handler, and records the group in g.
func newSoakSharded(e *soakEnv, g *soakGroup) []*soakSubject {
	sg := &soakShardGroup{}
	for i := range soakShardReplicas {
		s, err := newSoakShardReplica(e, g, sg, fmt.Sprintf("shard-%d", i))
		if err != nil {
			e.t.Fatal(err)
		}
		if _, err := s.addHandler("grow", "grow", false, e.viol, soakHandlerOpts{}); err != nil {
			e.t.Fatal(err)
		}
		sg.replicas = append(sg.replicas, s)
	}
	sg.replicas[0].finalCheck = sg.finalCheck
	g.shards = sg
	return sg.replicas
}

// newSoakShardReplica returns one replica as a subject of g. Its handlers
// take no options (fanout is false: the chaos handlers added to it are
// plain ones); the first one added is traced for the replay.
func newSoakShardReplica(e *soakEnv, g *soakGroup, sg *soakShardGroup, kind string) (*soakSubject, error) {
	lw := newGapLW(g.cs, g.selector)
	inf := sharding.NewShardedInformer(lw, &corev1.ConfigMap{}, sharding.Options{})
	trace := &replicaProc{id: kind}
	coord, err := sharding.NewCoordinator(sharding.Config{
		Client: e.admin.CoordinationV1(), Namespace: e.wl.ns[0], Ring: "soak", Identity: kind,
		Ranges: soakShardRanges, LeaseDuration: soakShardLease, RenewDeadline: soakShardRenew, RetryPeriod: soakShardRetry,
	}, soakTracedTarget{inf, trace}, sharding.CoordinatorOptions{})
	if err != nil {
		return nil, err
	}
	sg.traces = append(sg.traces, trace)
	s := &soakSubject{
		name: g.name + "/" + kind, group: g, kind: kind, lw: lw, shards: sg,
		// The Coordinator stops every range (handing it over) before it
		// returns; Wait waits for the range informers.
		run:       func(ctx context.Context) { coord.Run(ctx); inf.Wait() },
		hasSynced: inf.HasSynced, list: inf.GetStore().List,
	}
	_ = inf.SetWatchErrorHandler(func(*informer.Reflector, error) {})
	var traced sync.Once
	s.add = func(h *soakHandler, o soakHandlerOpts) (*soakReg, error) {
		if o != (soakHandlerOpts{}) {
			return nil, fmt.Errorf("the soak's sharded replicas take no handler options, got %+v", o)
		}
		// Calls are in order per object, and a recreated name is another
		// object, maybe in another range: the order is checked per UID.
		h.identity = soakShardIdentity
		var handler informer.ResourceEventHandler = h
		traced.Do(func() { handler = soakTracingHandler{trace: trace, next: h} })
		reg, err := inf.AddEventHandler(handler)
		if err != nil {
			return nil, err
		}
		return plainSoakReg(h, reg.HasSynced, func() error { return inf.RemoveEventHandler(reg) }), nil
	}
	return s, nil
}

// check compares the replicas with the server's state want and returns
// what differs and the invariant it breaks ("" if nothing does).
func (sg *soakShardGroup) check(want map[string]string) (msg, kind string) {
	union := map[string]string{}
	var twice []string
	stores := make([]map[string]string, len(sg.replicas))
	for i, s := range sg.replicas {
		stores[i] = storeState(s.list())
		for k, v := range stores[i] {
			if _, dup := union[k]; dup {
				twice = append(twice, k)
			}
			union[k] = v
		}
	}
	if len(twice) > 0 {
		return fmt.Sprintf("sharded group: %d objects in two replicas' stores, for example %v", len(twice), twice[:min(5, len(twice))]), "shard-exclusive"
	}
	if d := diffStates(want, union); d != "" {
		return "sharded group's stores together: " + d, "store-vs-server"
	}
	for i, s := range sg.replicas {
		for _, r := range s.registrations() {
			if !r.synced() {
				continue
			}
			if d := diffStates(stores[i], r.h.snapshot()); d != "" {
				return r.h.name + " vs its replica's store: " + d, "handler-final-state"
			}
		}
	}
	return "", ""
}

// finalCheck replays the replicas' traces and returns a summary line.
func (sg *soakShardGroup) finalCheck(e *soakEnv) string {
	res := replayReplicas("", sg.traces)
	for _, msg := range res.errors {
		e.viol.add("shard-exclusive", msg)
	}
	if n := res.violations + res.outside - len(res.errors); n > 0 {
		e.viol.add("shard-exclusive", fmt.Sprintf("%d more deliveries while another replica held the object or outside a served range", n))
	}
	var replicas []string
	for _, s := range sg.replicas {
		replicas = append(replicas, s.name)
	}
	return fmt.Sprintf("sharded group %s (%d ranges): %d deliveries replayed, %d while another replica held the object, %d outside a served range (%d in flight at a forced stop, allowed); range stops: %d graceful, %d forced",
		strings.Join(replicas, ", "), soakShardRanges, res.deliveries, res.violations, res.outside, res.inflight, res.graceful, res.forced)
}
