package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildShardReplica builds contrib/sharding/cmd/shardreplica (a tool of
// this module, so it links this module's client-go v0.37, whose
// ListOptions carry the shard selector; contrib/sharding's own go.mod is on
// v0.35) into a temporary dir and returns the binary's path.
func buildShardReplica(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "shardreplica")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/kfanout/fanout/contrib/sharding/cmd/shardreplica")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build shardreplica: %v\n%s", err, out)
	}
	t.Logf("built shardreplica in %v", time.Since(start).Round(time.Millisecond))
	return bin
}

// replicaLine is one JSON line of shardreplica's output.
type replicaLine struct {
	T        int64    `json:"t"`
	K        string   `json:"k"`
	N        string   `json:"n"`
	Count    int      `json:"count"`
	Events   int64    `json:"events"`
	Filtered int64    `json:"filtered"`
	Heap     uint64   `json:"heap"`
	Objects  int      `json:"objects"`
	Names    []string `json:"names"`
	RVs      []string `json:"rvs"`
	Owned    []int    `json:"owned"`
	Range    int      `json:"range"`
	RV       string   `json:"rv"`
	Graceful bool     `json:"graceful"`
	MS       int64    `json:"ms"`
	replica  string
}

// replicaProc is a running shardreplica process.
type replicaProc struct {
	id      string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies chan replicaLine // stats and dump answers
	synced  chan struct{}
	exited  chan struct{}

	mu     sync.Mutex
	lines  []replicaLine // deliveries and ownership changes, in order
	owned  int
	killed time.Time // when SIGKILLed
	termed time.Time // when SIGTERMed
}

func startReplica(t *testing.T, bin, kubeconfig, ns, ring, id string, ranges int) *replicaProc {
	t.Helper()
	cmd := exec.Command(bin, "-kubeconfig", kubeconfig, "-namespace", ns, "-ring", ring, "-identity", id,
		"-ranges", fmt.Sprint(ranges), "-lease", "6s", "-renew", "3s", "-retry", "1s", "-v", "0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(os.Getenv("FANOUT_E2E_DIR"), "logs", "shardreplica-"+ring+"-"+id+".log"))
	if err != nil {
		logf, _ = os.CreateTemp("", "shardreplica-*.log")
	}
	cmd.Stderr = logf
	p := &replicaProc{id: id, cmd: cmd, stdin: stdin, replies: make(chan replicaLine, 4), synced: make(chan struct{}), exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.exited)
		defer logf.Close()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var l replicaLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				continue
			}
			l.replica = id
			switch l.K {
			case "stats", "dump":
				p.replies <- l
			case "synced":
				close(p.synced)
			default:
				p.mu.Lock()
				p.lines = append(p.lines, l)
				if l.K == "ownedCount" {
					p.owned = l.Count
				}
				p.mu.Unlock()
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *replicaProc) ask(t *testing.T, what string) replicaLine {
	t.Helper()
	if _, err := fmt.Fprintln(p.stdin, what); err != nil {
		t.Fatalf("replica %s: %v", p.id, err)
	}
	select {
	case l := <-p.replies:
		return l
	case <-time.After(30 * time.Second):
		t.Fatalf("replica %s: no answer to %s", p.id, what)
		return replicaLine{}
	}
}

func (p *replicaProc) ownedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.owned
}

// ownershipMoves returns how many times p's owned ranges have changed.
func (p *replicaProc) ownershipMoves() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, l := range p.lines {
		if l.K == "ownedCount" {
			n++
		}
	}
	return n
}

func (p *replicaProc) snapshot() []replicaLine {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]replicaLine(nil), p.lines...)
}

// killedAt is when p was SIGKILLed; zero if not.
func (p *replicaProc) killedAt() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.killed
}

// termedAt is when p was sent SIGTERM; zero if not.
func (p *replicaProc) termedAt() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.termed
}

// isSynced reports whether p has printed "synced".
func (p *replicaProc) isSynced() bool {
	select {
	case <-p.synced:
		return true
	default:
		return false
	}
}

// hasExited reports whether p's output has ended.
func (p *replicaProc) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// terminate sends SIGTERM (graceful leave), records when, and returns.
func (p *replicaProc) terminate() {
	p.mu.Lock()
	if p.termed.IsZero() {
		p.termed = time.Now()
	}
	p.mu.Unlock()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
}

// stop sends SIGTERM (graceful leave) and waits for the exit.
func (p *replicaProc) stop(t *testing.T) {
	t.Helper()
	p.terminate()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Errorf("replica %s did not leave within 30 s", p.id)
		p.kill()
	}
}

// kill sends SIGKILL and records when.
func (p *replicaProc) kill() {
	p.mu.Lock()
	if p.killed.IsZero() {
		p.killed = time.Now()
	}
	p.mu.Unlock()
	_ = p.cmd.Process.Kill()
	<-p.exited
}
