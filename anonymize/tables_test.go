package anonymize

import (
	"strings"
	"testing"
)

// Columns whose header states a node, host, user or namespace: kubectl's
// NAME (of get nodes), NODE and NAMESPACE, query user's USERNAME,
// Format-Table's MachineName, Export-Csv's MachineName. Other columns, a
// NAME column of other objects and the cluster's own namespaces stay.
func TestHarvestTables(t *testing.T) {
	in := strings.Join([]string{
		"PS C:\\> kubectl get nodes -o wide",
		"NAME                STATUS   ROLES           AGE   VERSION   INTERNAL-IP    EXTERNAL-IP   OS-IMAGE",
		"tslinux-ctl01       Ready    control-plane   30d   v1.30.4   10.20.30.11    <none>        Ubuntu 22.04.4 LTS",
		"tswin-pool07        Ready    <none>          12d   v1.30.4   10.20.30.47    <none>        Windows Server 2022",
		"",
		"NAMESPACE     NAME                     READY   STATUS    RESTARTS   AGE   IP             NODE             NOMINATED NODE",
		"kube-system   coredns-76f75df574-x2x   1/1     Running   0          3d    10.244.1.7     tswin-pool09     <none>",
		"acme-prod     checkout-6f9d8c7b5-2kq   1/1     Running   1          3d    10.244.3.17    tslinux-wrk03    <none>",
		"",
		" USERNAME              SESSIONNAME        ID  STATE   IDLE TIME  LOGON TIME",
		">lhernandez            rdp-tcp#3           2  Active          .  11/27/2026 3:10 AM",
		" bwatanabe                                 3  Disc            5  11/27/2026 1:00 AM",
		"",
		"MachineName          Id Message",
		"-----------          -- -------",
		"lgwin-node12       7036 The kubelet service entered the running state.",
		"",
		`"TimeCreated","Id","MachineName","UserId"`,
		`"11/27/2026 04:01:00","7036","cwwin-node4.litware.lan","S-1-5-18"`,
		"",
		"NAME         TYPE        CLUSTER-IP   PORT(S)",
		"frontend     ClusterIP   10.96.4.2    80/TCP",
	}, "\n")
	a := testAnonymizer()
	a.HarvestText([]byte(in))
	out := string(a.Text([]byte(in)))
	for _, s := range []string{"tslinux-ctl01", "tswin-pool07", "tswin-pool09", "tslinux-wrk03", "acme-prod", "lhernandez", "bwatanabe", "lgwin-node12", "cwwin-node4", "litware"} {
		if strings.Contains(out, s) {
			t.Errorf("%s left", s)
		}
	}
	for _, s := range []string{"kube-system", "coredns-76f75df574-x2x", "frontend", "rdp-tcp#3", "Running", "S-1-5-18", "<none>"} {
		if !strings.Contains(out, s) {
			t.Errorf("%s lost", s)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}
