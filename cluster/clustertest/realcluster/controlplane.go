package realcluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// EnvFile names the file tools/testcluster/build.sh writes: the paths of
// the binaries, one NAME=path a line.
const EnvFile = "DIAG_TESTCLUSTER_ENV"

// Options shape a control plane.
type Options struct {
	// NoPrivileged starts the API server without --allow-privileged: it
	// refuses HostProcess and host-namespace pods.
	NoPrivileged bool
}

// ControlPlane is a running etcd, kube-apiserver and kwok.
type ControlPlane struct {
	t        testing.TB
	dir      string
	pki      *pki
	bins     map[string]string
	Server   string // https://127.0.0.1:port
	Admin    *rest.Config
	AuditLog string
	kwokPort int
	procs    []*exec.Cmd
	byName   map[string]*exec.Cmd
	// StandinDir holds the stand-in collector's cmd.exe and diag, first on
	// kwok's PATH: what the pods' exec runs.
	StandinDir string
}

// Binaries reads the build script's env file, or skips the test.
func Binaries(t testing.TB) map[string]string {
	t.Helper()
	path := os.Getenv(EnvFile)
	if path == "" {
		t.Skipf("no real control plane: %s is not set (make test-cluster builds etcd, kube-apiserver and kwok and sets it)", EnvFile)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%s: %v (tools/testcluster/build.sh writes it)", EnvFile, err)
	}
	defer f.Close()
	bins := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			bins[k] = v
		}
	}
	for _, k := range []string{"KUBE_APISERVER", "ETCD", "KWOK", "KWOK_CRDS"} {
		if _, err := os.Stat(bins[k]); err != nil {
			t.Fatalf("%s: %s: %v (run tools/testcluster/build.sh)", path, k, err)
		}
	}
	return bins
}

// Start runs a control plane for the test and stops it when the test ends.
// standin is the stand-in collector (see package standin) that kwok's exec
// runs for Windows (as cmd.exe) and Linux (as diag) pods.
func Start(t testing.TB, standin string, o Options) *ControlPlane {
	t.Helper()
	bins := Binaries(t)
	dir, err := os.MkdirTemp("", "diag-testcluster-")
	if err != nil {
		t.Fatal(err)
	}
	cp := &ControlPlane{t: t, dir: dir, bins: bins, AuditLog: filepath.Join(dir, "audit.log")}
	t.Cleanup(cp.stop)
	if err := cp.start(standin, o); err != nil {
		t.Fatalf("control plane: %v (logs in %s)", err, dir)
	}
	return cp
}

func (cp *ControlPlane) start(standin string, o Options) error {
	var err error
	if cp.pki, err = newPKI(cp.dir); err != nil {
		return err
	}
	ports, err := freePorts(4)
	if err != nil {
		return err
	}
	etcdClient, etcdPeer, apiPort, kwokPort := ports[0], ports[1], ports[2], ports[3]
	cp.kwokPort = kwokPort
	cp.Server = fmt.Sprintf("https://127.0.0.1:%d", apiPort)

	// etcd: one member on loopback, no fsync (a test's data is thrown away).
	if err := cp.run("etcd", cp.bins["ETCD"], nil,
		"--name=default", "--data-dir="+filepath.Join(cp.dir, "etcd"),
		fmt.Sprintf("--listen-client-urls=http://127.0.0.1:%d", etcdClient),
		fmt.Sprintf("--advertise-client-urls=http://127.0.0.1:%d", etcdClient),
		fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", etcdPeer),
		fmt.Sprintf("--initial-advertise-peer-urls=http://127.0.0.1:%d", etcdPeer),
		fmt.Sprintf("--initial-cluster=default=http://127.0.0.1:%d", etcdPeer),
		"--unsafe-no-fsync", "--log-level=warn",
	); err != nil {
		return err
	}

	serving, servingKey, err := cp.pki.issue("apiserver", "kube-apiserver", nil, "127.0.0.1", "localhost", "kubernetes.default.svc")
	if err != nil {
		return err
	}
	kubeletClient, kubeletClientKey, err := cp.pki.issue("kubelet-client", "kube-apiserver-kubelet-client", []string{"system:masters"})
	if err != nil {
		return err
	}
	saKey, err := cp.pki.serviceAccountKey()
	if err != nil {
		return err
	}
	policy := filepath.Join(cp.dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return err
	}
	args := []string{
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", etcdClient),
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", apiPort),
		"--cert-dir=" + filepath.Join(cp.dir, "apiserver-certs"),
		"--tls-cert-file=" + serving, "--tls-private-key-file=" + servingKey,
		"--client-ca-file=" + cp.pki.CAFile,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + saKey, "--service-account-signing-key-file=" + saKey,
		"--service-cluster-ip-range=10.96.0.0/24",
		"--authorization-mode=Node,RBAC",
		"--kubelet-client-certificate=" + kubeletClient, "--kubelet-client-key=" + kubeletClientKey,
		"--kubelet-preferred-address-types=InternalIP",
		"--audit-policy-file=" + policy, "--audit-log-path=" + cp.AuditLog, "--audit-log-format=json",
		"--profiling=false", "--v=0",
	}
	// Pod Security admission is on by default; the tests label namespaces.
	if !o.NoPrivileged {
		args = append(args, "--allow-privileged=true")
	}
	if err := cp.run("kube-apiserver", cp.bins["KUBE_APISERVER"], nil, args...); err != nil {
		return err
	}
	if cp.Admin, err = cp.UserConfig("admin", "system:masters"); err != nil {
		return err
	}
	if err := cp.waitReady(); err != nil {
		return err
	}

	// kwok: the Exec resource (so each pod's exec carries its node's name),
	// then the controller for the nodes labelled as kwok's.
	crd, err := os.ReadFile(filepath.Join(cp.bins["KWOK_CRDS"], "kwok.x-k8s.io_execs.yaml"))
	if err != nil {
		return err
	}
	if err := cp.Apply(cp.Admin, string(crd)); err != nil {
		return fmt.Errorf("kwok's Exec CRD: %w", err)
	}
	if err := cp.waitCRD(); err != nil {
		return err
	}
	kwokConf := filepath.Join(cp.dir, "kwok.yaml")
	if err := os.WriteFile(kwokConf, []byte(kwokStages), 0o600); err != nil {
		return err
	}
	kwokCert, kwokKey, err := cp.pki.issue("kwok", "kwok", []string{"system:masters"}, "127.0.0.1")
	if err != nil {
		return err
	}
	kwokKubeconfig, err := cp.Kubeconfig("kwok", "system:masters")
	if err != nil {
		return err
	}
	cp.StandinDir = filepath.Join(cp.dir, "standin")
	if err := installStandin(cp.StandinDir, standin); err != nil {
		return err
	}
	env := []string{"PATH=" + cp.StandinDir + string(os.PathListSeparator) + os.Getenv("PATH")}
	if err := cp.run("kwok", cp.bins["KWOK"], env,
		"--kubeconfig="+kwokKubeconfig, "--config="+kwokConf, "--enable-crds=Exec",
		"--manage-nodes-with-label-selector="+LabelKwok+"=true",
		"--node-ip=127.0.0.1", fmt.Sprintf("--node-port=%d", kwokPort),
		fmt.Sprintf("--server-address=127.0.0.1:%d", kwokPort),
		"--tls-cert-file="+kwokCert, "--tls-private-key-file="+kwokKey,
	); err != nil {
		return err
	}
	return cp.waitKwok()
}

// run starts one component, its output to dir/name.log.
func (cp *ControlPlane) run(name, bin string, env []string, args ...string) error {
	log, err := os.Create(filepath.Join(cp.dir, name+".log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	// What a component and its children (the collectors kwok's exec runs,
	// killed with their pods) leave in TMPDIR goes with the control plane.
	tmp := filepath.Join(cp.dir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		log.Close()
		return err
	}
	cmd.Env = append(append(os.Environ(), env...), "TMPDIR="+tmp)
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", name, err)
	}
	cp.procs = append(cp.procs, cmd)
	if cp.byName == nil {
		cp.byName = map[string]*exec.Cmd{}
	}
	cp.byName[name] = cmd
	go func() { _ = cmd.Wait(); log.Close() }()
	return nil
}

func (cp *ControlPlane) stop() {
	for i := len(cp.procs) - 1; i >= 0; i-- {
		p := cp.procs[i]
		terminate(p)
		done := make(chan struct{})
		go func() {
			for alive(p) {
				time.Sleep(20 * time.Millisecond)
			}
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			kill(p)
		}
	}
	if cp.t.Failed() || os.Getenv("DIAG_TESTCLUSTER_KEEP") != "" {
		cp.t.Logf("control plane files kept in %s", cp.dir)
		return
	}
	_ = os.RemoveAll(cp.dir)
}

// APIServerPID is the kube-apiserver's process: tests pause it (SIGSTOP)
// to play an API server that does not answer.
func (cp *ControlPlane) APIServerPID() int { return cp.byName["kube-apiserver"].Process.Pid }

func (cp *ControlPlane) waitReady() error {
	client, err := rest.HTTPClientFor(cp.Admin)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(90 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		resp, err := client.Get(cp.Server + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("readyz: %s", resp.Status)
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver not ready in 90s: %v", last)
}

func (cp *ControlPlane) waitCRD() error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := cp.Get(cp.Admin, "/apis/kwok.x-k8s.io/v1alpha1/execs"); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("kwok's Exec CRD not served in 30s")
}

func (cp *ControlPlane) waitKwok() error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(cp.kwokPort), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("kwok not listening in 30s")
}

// freePorts are n loopback ports free now.
func freePorts(n int) ([]int, error) {
	var out []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// UserConfig is a client of the API server as user, in groups, with a
// client certificate the control plane's CA signed.
func (cp *ControlPlane) UserConfig(user string, groups ...string) (*rest.Config, error) {
	cert, key, err := cp.pki.issue("user-"+safeName(user), user, groups)
	if err != nil {
		return nil, err
	}
	return &rest.Config{Host: cp.Server, TLSClientConfig: rest.TLSClientConfig{CAFile: cp.pki.CAFile, CertFile: cert, KeyFile: key}}, nil
}

// Kubeconfig writes a kubeconfig for user (context "test") and returns its
// path.
func (cp *ControlPlane) Kubeconfig(user string, groups ...string) (string, error) {
	cert, key, err := cp.pki.issue("user-"+safeName(user), user, groups)
	if err != nil {
		return "", err
	}
	path := filepath.Join(cp.dir, "kubeconfig-"+safeName(user))
	conf := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: %q, certificate-authority: %q}
users:
- name: %q
  user: {client-certificate: %q, client-key: %q}
contexts:
- name: test
  context: {cluster: test, user: %q}
current-context: test
`, cp.Server, cp.pki.CAFile, user, cert, key, user)
	return path, os.WriteFile(path, []byte(conf), 0o600)
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// Context is a test's context with a bound.
func Context(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
