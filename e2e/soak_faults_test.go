package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// soakFault is one injected fault, timed from the start of the run.
type soakFault struct {
	Kind   string  `json:"kind"`
	Target string  `json:"target"`
	Start  float64 `json:"start_s"`
	End    float64 `json:"end_s"`
	Detail string  `json:"detail,omitempty"`
	Err    string  `json:"error,omitempty"`
}

// The etcd pause fault lasts 12-19 s, past kube-apiserver's
// --etcd-healthcheck-timeout and --etcd-readycheck-timeout (2 s by
// default): the apiservers' /readyz fails and their requests to etcd wait
// or time out while it lasts.
const (
	soakEtcdCheckTimeout = 2
	soakEtcdPauseMin     = 12
)

// soakProcs controls and watches the cluster's processes: hack/e2e/cluster.sh
// for starts and compaction, signals to the pids in its state dir for kills
// and pauses. It knows which processes are meant to be down, so that the
// monitor can tell a crash from a fault.
type soakProcs struct {
	c    *cluster
	viol *soakViolations

	mu       sync.Mutex
	down     map[string]bool // "apiserver-main", ...: killed on purpose
	paused   map[string]bool
	reported map[string]bool
}

func newSoakProcs(c *cluster, viol *soakViolations) *soakProcs {
	return &soakProcs{c: c, viol: viol, down: map[string]bool{}, paused: map[string]bool{}, reported: map[string]bool{}}
}

// ctl runs cluster.sh COMMAND STATE_DIR ARGS...
func (p *soakProcs) ctl(args ...string) (string, error) {
	full := append([]string{args[0], p.c.dir}, args[1:]...)
	out, err := exec.Command(p.c.ctl, full...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("cluster.sh %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// pid returns the pid of process name ("etcd", "apiserver-main", ...) if it
// is running its binary.
func (p *soakProcs) pid(name string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(p.c.dir, name+".pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, false
	}
	cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	bin := "kube-apiserver"
	if name == "etcd" {
		bin = "etcd"
	}
	if err != nil || !strings.Contains(string(cmd), bin) {
		return pid, false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
			return pid, false
		}
	}
	return pid, true
}

// serving reports whether apiserver name ("main", "nocache") is meant to
// serve requests now: it runs, and so does etcd.
func (p *soakProcs) serving(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.down["apiserver-"+name] && !p.paused["apiserver-"+name] && !p.down["etcd"] && !p.paused["etcd"]
}

// check records a violation for every process that is not running and was
// not stopped on purpose.
func (p *soakProcs) check() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range []string{"etcd", "apiserver-main", "apiserver-nocache"} {
		if p.down[name] {
			continue
		}
		if _, ok := p.pid(name); !ok && !p.reported[name] {
			p.reported[name] = true
			p.viol.add("process-crash", name+" is not running")
		}
	}
}

// kill sends SIGKILL to apiserver name and marks it down.
func (p *soakProcs) kill(name string) error { return p.killProc("apiserver-" + name) }

// killProc sends SIGKILL to process proc ("etcd", "apiserver-main", ...)
// and marks it down.
func (p *soakProcs) killProc(proc string) error {
	p.mu.Lock()
	p.down[proc] = true
	p.mu.Unlock()
	pid, ok := p.pid(proc)
	if !ok {
		return fmt.Errorf("%s not running", proc)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return err
	}
	for i := 0; i < 100; i++ {
		if _, ok := p.pid(proc); !ok {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s (pid %d) still running after SIGKILL", proc, pid)
}

// start starts apiserver name again and waits until it is ready.
func (p *soakProcs) start(name string) error {
	return p.startProc("apiserver-"+name, "start-apiserver", name)
}

// startEtcd starts etcd again, on its ports and data, and waits until it
// is healthy.
func (p *soakProcs) startEtcd() error { return p.startProc("etcd", "start-etcd") }

// startProc runs cluster.sh args and marks proc up when it succeeded.
func (p *soakProcs) startProc(proc string, args ...string) error {
	_, err := p.ctl(args...)
	if err == nil {
		p.mu.Lock()
		p.down[proc] = false
		p.mu.Unlock()
	}
	return err
}

// signal sends SIGSTOP (pause true) or SIGCONT to apiserver name.
func (p *soakProcs) signal(name string, pause bool) error {
	return p.signalProc("apiserver-"+name, pause)
}

// signalProc sends SIGSTOP (pause true) or SIGCONT to process proc.
func (p *soakProcs) signalProc(proc string, pause bool) error {
	pid, ok := p.pid(proc)
	if !ok {
		return fmt.Errorf("%s not running", proc)
	}
	sig := syscall.SIGCONT
	if pause {
		sig = syscall.SIGSTOP
	}
	p.mu.Lock()
	p.paused[proc] = pause
	p.mu.Unlock()
	return syscall.Kill(pid, sig)
}

// restore resumes every paused process and starts every stopped one, etcd
// first.
func (p *soakProcs) restore() error {
	var first error
	for _, proc := range []string{"etcd", "apiserver-main", "apiserver-nocache"} {
		p.mu.Lock()
		paused, down := p.paused[proc], p.down[proc]
		p.mu.Unlock()
		if paused {
			if err := p.signalProc(proc, false); err != nil && first == nil {
				first = err
			}
		}
		if down {
			var err error
			if proc == "etcd" {
				err = p.startEtcd()
			} else {
				err = p.start(strings.TrimPrefix(proc, "apiserver-"))
			}
			if err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// soakRBAC grants the limited user list and watch on ConfigMaps in every
// namespace, and can take the grant away.
type soakRBAC struct {
	admin kubernetes.Interface
	name  string
}

func (r *soakRBAC) setup(ctx context.Context) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: r.name},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}},
	}
	if _, err := r.admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return r.grant(ctx)
}

func (r *soakRBAC) grant(ctx context.Context) error {
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: r.name},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: r.name},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "fanout-limited"}},
	}
	_, err := r.admin.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func (r *soakRBAC) revoke(ctx context.Context) error {
	err := r.admin.RbacV1().ClusterRoleBindings().Delete(ctx, r.name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func (r *soakRBAC) teardown(ctx context.Context) {
	_ = r.revoke(ctx)
	_ = r.admin.RbacV1().ClusterRoles().Delete(ctx, r.name, metav1.DeleteOptions{})
}

// soakInjector injects faults on two lanes: processes and permissions
// (one at a time), and handlers and informers. Both lanes hold gate for
// reading while a fault runs, so that a quiescent check (which takes it
// for writing) waits for the faults in progress and starts no new one.
type soakInjector struct {
	env  *soakEnv
	gate sync.RWMutex

	mu     sync.Mutex
	faults []soakFault
}

// record logs a fault and keeps it for the report.
func (in *soakInjector) record(f soakFault) {
	in.mu.Lock()
	in.faults = append(in.faults, f)
	in.mu.Unlock()
	msg := fmt.Sprintf("soak fault [%6.1fs-%6.1fs] %s %s %s", f.Start, f.End, f.Kind, f.Target, f.Detail)
	if f.Err != "" {
		msg += " error: " + f.Err
	}
	in.env.logf("%s", msg)
}

func (in *soakInjector) snapshot() []soakFault {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]soakFault(nil), in.faults...)
}

// lane runs faults from pick until ctx ends or, for a new fault, until
// stopAt, waiting a random time from minGap to maxGap between them.
func (in *soakInjector) lane(ctx context.Context, rng *rand.Rand, minGap, maxGap time.Duration, stopAt time.Time, pick func(rng *rand.Rand) func(ctx context.Context, f *soakFault) error) {
	for time.Now().Before(stopAt) {
		gap := minGap + time.Duration(rng.Int63n(int64(maxGap-minGap)+1))
		select {
		case <-ctx.Done():
			return
		case <-time.After(gap):
		}
		fault := pick(rng)
		in.gate.RLock()
		if ctx.Err() != nil {
			in.gate.RUnlock()
			return
		}
		f := soakFault{Start: in.env.since()}
		err := fault(ctx, &f)
		f.End = in.env.since()
		if err != nil {
			f.Err = err.Error()
		}
		in.gate.RUnlock()
		in.record(f)
	}
}

// sleepCtx sleeps d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// processFault picks a process or permission fault. The sequence is a
// shuffled round of every kind, so that a short run sees each of them.
func (in *soakInjector) processFaults() func(rng *rand.Rand) func(ctx context.Context, f *soakFault) error {
	kinds := []string{"apiserver-kill", "apiserver-pause", "compact-410", "rbac-revoke", "compact", "etcd-kill", "etcd-pause"}
	var round []string
	return func(rng *rand.Rand) func(ctx context.Context, f *soakFault) error {
		if len(round) == 0 {
			round = append([]string(nil), kinds...)
			rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		}
		kind := round[0]
		round = round[1:]
		target := []string{"main", "nocache"}[rng.Intn(2)]
		hold := time.Duration(1000+rng.Intn(3000)) * time.Millisecond
		pause := time.Duration(20+rng.Intn(12)) * time.Second
		etcdPause := time.Duration(soakEtcdPauseMin+rng.Intn(8)) * time.Second
		p := in.env.procs
		return func(ctx context.Context, f *soakFault) error {
			f.Kind = kind
			switch kind {
			case "apiserver-kill":
				f.Target = target
				f.Detail = fmt.Sprintf("SIGKILL, restart after %v", hold)
				if err := p.kill(target); err != nil {
					return err
				}
				time.Sleep(hold)
				return p.start(target)
			case "apiserver-pause":
				f.Target = target
				f.Detail = fmt.Sprintf("SIGSTOP for %v (> HTTP/2 health check %ds+%ds)", pause, soakHTTP2ReadIdle, soakHTTP2Ping)
				if err := p.signal(target, true); err != nil {
					return err
				}
				time.Sleep(pause)
				return p.signal(target, false)
			case "compact-410":
				// nocache watches etcd directly: stopped while the other
				// apiserver takes writes and etcd compacts past its watches'
				// revision, it answers their next watch with 410 Gone.
				f.Target = "nocache"
				if err := p.kill("nocache"); err != nil {
					return err
				}
				time.Sleep(hold)
				rev, err := p.ctl("compact")
				if err != nil {
					_ = p.start("nocache")
					return err
				}
				f.Detail = "SIGKILL, etcd compacted at revision " + rev + ", restart"
				return p.start("nocache")
			case "etcd-kill":
				// Both apiservers lose their storage: their watches on etcd
				// end, writes fail until it is back (the workload skips
				// them meanwhile), and the informers' watches must resume
				// or relist without losing a change.
				f.Target = "etcd"
				f.Detail = fmt.Sprintf("SIGKILL, restart on the same data after %v", hold)
				if err := p.killProc("etcd"); err != nil {
					return err
				}
				time.Sleep(hold)
				return p.startEtcd()
			case "etcd-pause":
				f.Target = "etcd"
				f.Detail = fmt.Sprintf("SIGSTOP for %v (> the apiservers' etcd health and ready check timeouts, %ds)", etcdPause, soakEtcdCheckTimeout)
				if err := p.signalProc("etcd", true); err != nil {
					return err
				}
				time.Sleep(etcdPause)
				return p.signalProc("etcd", false)
			case "compact":
				f.Target = "etcd"
				rev, err := p.ctl("compact")
				f.Detail = "compacted at revision " + rev
				return err
			case "rbac-revoke":
				f.Target = "fanout-limited"
				hold := 5 * time.Second
				f.Detail = fmt.Sprintf("ClusterRoleBinding deleted for %v; restarted informers list meanwhile", hold)
				rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if err := in.env.rbac.revoke(rctx); err != nil {
					return err
				}
				// Informers that start now meet Forbidden until the grant.
				for _, g := range in.env.groups {
					in.env.restartChurn(g)
				}
				time.Sleep(hold)
				return in.env.rbac.grant(rctx)
			}
			return fmt.Errorf("unknown fault %s", kind)
		}
	}
}

// handlerFaults picks a handler or informer fault.
func (in *soakInjector) handlerFaults() func(rng *rand.Rand) func(ctx context.Context, f *soakFault) error {
	return func(rng *rand.Rand) func(ctx context.Context, f *soakFault) error {
		env := in.env
		g := env.groups[rng.Intn(len(env.groups))]
		s := g.subjects[rng.Intn(len(g.subjects))]
		r := rng.Intn(100)
		stall := time.Duration(2+rng.Intn(8)) * time.Second
		n := 1 + rng.Intn(3)
		return func(ctx context.Context, f *soakFault) error {
			switch {
			case r < 25:
				regs := s.registrations()
				if len(regs) == 0 {
					f.Kind = "handler-stall"
					return fmt.Errorf("%s has no handler", s.name)
				}
				reg := regs[rng.Intn(len(regs))]
				f.Kind, f.Target = "handler-stall", reg.h.name
				f.Detail = fmt.Sprintf("stalled for %v", stall)
				reg.h.stallUntil.Store(time.Now().Add(stall).UnixNano())
			case r < 45:
				f.Kind = "handler-panic"
				var cands []*soakReg
				for _, sub := range g.subjects {
					for _, reg := range sub.registrations() {
						if reg.opts.recoverPanics {
							cands = append(cands, reg)
						}
					}
				}
				if len(cands) == 0 {
					return env.addChaosHandler(rng, s, f)
				}
				reg := cands[rng.Intn(len(cands))]
				f.Target = reg.h.name
				f.Detail = fmt.Sprintf("next %d calls panic (RecoverPanics)", n)
				reg.h.panics.Add(int64(n))
			case r < 65:
				return env.addChaosHandler(rng, s, f)
			case r < 85:
				return env.removeChaosHandler(rng, s, f)
			default:
				f.Kind, f.Target = "informer-restart", g.name+"/churn"
				f.Detail = "stopped, a new informer started"
				env.restartChurn(g)
			}
			return nil
		}
	}
}
