package anonymize

import (
	"strings"
	"testing"
)

// TestStatedFields: a host name too short or too common for free text is
// replaced wherever a field states it, and only there.
func TestStatedFields(t *testing.T) {
	a := testAnonymizer()
	a.AddName(KindHost, "vm")
	a.AddName(KindHost, "master")
	a.AddName(KindHost, "overlay")
	a.AddName(KindHost, "vm.fabrikam.local") // a stated FQDN is specific: replaced in free text too
	for _, in := range []string{
		`{"Hostname": "vm"}`, `"nodeName":"VM"`, `"kubernetes.io/hostname": "vm"`, `{"type": "Hostname", "address": "vm"}`,
		`"metadata": {"name": "master"`, `"affinity": "host:vm"`, `"name": "vm-100-244-206-64-26"`, `"DNSHostName": "vm.contoso.local"`,
		"   Host Name . . . . . . . . . . . . : VM\r", "COMPUTERNAME=VM", "CsName : vm", "nodeName: vm", `hostname: "master"`,
		"kube-proxy.exe --hostname-override=vm --v=4", "kubelet --hostname-override vm", "Invoke-Command -ComputerName vm",
		"<ComputerName>vm</ComputerName>", "vm.fabrikam.local", "VM.FABRIKAM.LOCAL",
	} {
		got := a.String(in)
		if strings.Contains(strings.ToLower(got), "vm") && !strings.Contains(strings.ToLower(in), "vm-100") || strings.Contains(got, "master") {
			t.Errorf("%q -> %q: the name is left", in, got)
		}
	}
	for _, keep := range []string{
		"the vm cannot reach CoreDNS", "git checkout master", `"Type": "Overlay"`, `"Name": "vm-switch"`, "Name : vm\r",
		`"node-role.kubernetes.io/master": ""`, `"branch": "master"`, "--network-name=Overlay",
	} {
		if got := a.String(keep); got != keep {
			t.Errorf("%q changed to %q", keep, got)
		}
	}
	if got := a.String(`"name": "vm-100-244-206-64-26"`); strings.Contains(got, `"vm-`) {
		t.Errorf("Calico block name: %q", got)
	}
	kept := a.Kept()
	if len(kept) != 3 || kept[0].Name != "vm" || !strings.Contains(kept[0].Reason, "2 characters") {
		t.Errorf("kept: %+v", kept)
	}
	if got := a.WholeName("vm"); !strings.HasPrefix(got, "host-") {
		t.Errorf("WholeName(vm) = %q", got)
	}
	for _, n := range []string{"localhost", "WORKGROUP"} {
		a.AddName(KindHost, n)
		if got := a.String(`"Hostname": "` + n + `"`); !strings.Contains(got, n) {
			t.Errorf("%s is no one's name: %q", n, got)
		}
	}
}

// TestKeywords: a keyword goes in any case, inside longer words and file
// names; not inside an address's hex; one that would cut through the
// bundle is refused.
func TestKeywords(t *testing.T) {
	a := testAnonymizer()
	for _, k := range []string{"contoso", "Contoso-Prod", "cafe"} {
		if err := a.AddKeyword(k); err != nil {
			t.Fatal(err)
		}
	}
	got := a.String("Contoso ContosoWeb contoso-prod-aks CONTOSO logs/contoso_x.log cafe fd00::cafe:1 a cafe:beef")
	if strings.Contains(strings.ToLower(got), "contoso") || strings.Contains(got, " cafe ") {
		t.Errorf("keyword left: %q", got)
	}
	if !strings.Contains(got, "KEYWORD-") {
		t.Errorf("an upper-case keyword keeps its case: %q", got)
	}
	for _, bad := range []string{"ab", "overlay", "kube-system", "123", "two words"} {
		if err := a.AddKeyword(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if m := a.Mapping(); len(m.Keywords) != 3 {
		t.Errorf("mapping keywords: %v", m.Keywords)
	}
}
