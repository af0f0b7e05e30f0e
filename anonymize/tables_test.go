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

// The NAME column of kubectl get ns and kubectl top nodes, from the
// command before; node/NAME and system:node:NAME wherever they stand;
// tasklist's "User Name" column under '=' and in CSV.
func TestHarvestTablesByCommand(t *testing.T) {
	in := strings.Join([]string{
		"PS C:\\> kubectl get ns",
		"NAME              STATUS   AGE",
		"kube-system       Active   30d",
		"fabrikam-pay      Active   30d",
		"",
		"PS C:\\> kubectl top nodes",
		"NAME           CPU(cores)   CPU%   MEMORY(bytes)   MEMORY%",
		"fbwin-pool02   410m         10%    3900Mi          48%",
		"",
		"PS C:\\> kubectl get deploy",
		"NAME        READY   UP-TO-DATE   AVAILABLE   AGE",
		"frontend    2/2     2            2           3d",
		"",
		"NAMESPACE   LAST SEEN   TYPE      REASON     OBJECT                MESSAGE",
		"default     5m          Warning   Rebooted   node/fbwin-pool05     Node rebooted",
		`E1127 04:00:00 1 authz.go:1] User "system:node:fbwin-pool06" cannot get resource "pods"`,
		"",
		"Image Name                     PID Session Name        Session#    Mem Usage Status          User Name",
		"========================= ======== ================ =========== ============ =============== ==================",
		"kubelet.exe                   4312 Services                   0     61,204 K Unknown         FAB\\svc-kube7",
		"",
		`"Image Name","PID","Session Name","Session#","Mem Usage","Status","User Name"`,
		`"containerd.exe","2210","Services","0","40,112 K","Unknown","FAB\svc-ctrd8"`,
		"PS C:\\> whoami /upn",
		"rkowalski@corp.fabrikam.io",
		"mail rkowalski@corp.fabrikam.io or ops@github.com",
	}, "\n")
	a := testAnonymizer()
	a.HarvestText([]byte(in))
	out := string(a.Text([]byte(in)))
	for _, s := range []string{"fabrikam-pay", "fbwin-pool02", "fbwin-pool05", "fbwin-pool06", "svc-kube7", "svc-ctrd8", "rkowalski", "fabrikam.io"} {
		if strings.Contains(out, s) {
			t.Errorf("%s left", s)
		}
	}
	for _, s := range []string{"kube-system", "frontend", "kubelet.exe", "Session#", "ops@github.com", "system:node:"} {
		if !strings.Contains(out, s) {
			t.Errorf("%s lost", s)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}

// Get-LocalUser's Name column (from the command before), net user's grid
// of accounts; the built-in accounts stay.
func TestHarvestLocalUsers(t *testing.T) {
	in := strings.Join([]string{
		"PS C:\\> Get-LocalUser",
		"",
		"Name               Enabled Description",
		"----               ------- -----------",
		"Administrator      True    Built-in account for administering the computer/domain",
		"wgadmin            True",
		"",
		"PS C:\\> net user",
		"",
		"User accounts for \\\\TSWIN-APP02",
		"",
		"-------------------------------------------------------------------------------",
		"Administrator            DefaultAccount           Guest",
		"opsbackup                WDAGUtilityAccount",
		"The command completed successfully.",
		"[Environment]::SetEnvironmentVariable(\"NODENAME\", \"tswin-app09\", \"Machine\")",
		"OsRegisteredUser : Hana Sato",
		"Organization     : Contoso Pharma",
	}, "\n")
	a := testAnonymizer()
	a.HarvestText([]byte(in))
	out := string(a.Text([]byte(in)))
	for _, s := range []string{"wgadmin", "opsbackup", "tswin-app09", "Hana Sato", "Contoso Pharma"} {
		if strings.Contains(out, s) {
			t.Errorf("%s left", s)
		}
	}
	for _, s := range []string{"Administrator", "DefaultAccount", "Guest", "WDAGUtilityAccount", "Enabled Description"} {
		if !strings.Contains(out, s) {
			t.Errorf("%s lost", s)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}

// kubectl describe and -o yaml state nodes and namespaces in lines.
func TestHarvestKubectlDescribe(t *testing.T) {
	in := strings.Join([]string{
		"Name:               tswin-pool11",
		"Roles:              <none>",
		"Name:         checkout-6f9d8c7b5-2kq9x",
		"Namespace:    acme-staging",
		"Node:         tswin-pool12/10.20.30.48",
		"metadata:",
		"  namespace: globex-prod",
		"  name: web",
		`  "namespace": "kube-system",`,
		"time=x level=info msg=y namespace=k8s.io",
	}, "\n")
	a := testAnonymizer()
	a.HarvestText([]byte(in))
	out := string(a.Text([]byte(in)))
	for _, s := range []string{"tswin-pool11", "tswin-pool12", "acme-staging", "globex-prod"} {
		if strings.Contains(out, s) {
			t.Errorf("%s left", s)
		}
	}
	for _, s := range []string{"kube-system", "k8s.io", "name: web", "checkout-6f9d8c7b5-2kq9x"} {
		if !strings.Contains(out, s) {
			t.Errorf("%s lost", s)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}

// PowerShell's Name/Value table (Get-ChildItem env:) as a table and as
// CSV: each value is what its name states; a row in capitals is no header.
func TestHarvestNameValueTable(t *testing.T) {
	in := []byte("Name                           Value\n----                           -----\nCOMPUTERNAME                   TSWIN-APP05\n" +
		"USERDOMAIN                     TSCORP\nUSERNAME                       jplatt\nPROCESSOR_ARCHITECTURE         AMD64\n\n" +
		"\"Name\",\"Value\"\n\"COMPUTERNAME\",\"TSWIN-APP06\"\n")
	a := testAnonymizer()
	a.HarvestText(in)
	out := string(a.Text(in))
	for _, s := range []string{"TSWIN-APP05", "TSCORP", "jplatt", "TSWIN-APP06"} {
		if strings.Contains(out, s) {
			t.Errorf("%s left", s)
		}
	}
	for _, s := range []string{"USERDOMAIN ", "USERNAME ", "COMPUTERNAME", "AMD64"} {
		if !strings.Contains(out, s) {
			t.Errorf("%s lost", s)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}
