package formats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// Hostile or pathological inputs must come back with a result or an error,
// in bounded time and memory; none of these may panic or hang.

func TestHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 100 MB line")
	}
	line := "Policies : {" + strings.Repeat("@{a={", 1000) + strings.Repeat("x", 100<<20) + "}"
	var set objectSet
	if _, err := set.addArtifact([]byte(line), "huge.txt"); err != nil {
		t.Fatal(err)
	}
	ParseVFPDump(line, "huge.txt", "", map[string]*snapshot.VFPPort{})
	adapters, _ := ParseIPConfig(line)
	ParseRoutePrint(line, adapters)
}

func TestDeepNesting(t *testing.T) {
	deepJSON := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	if _, err := ParseNetworks([]byte(deepJSON), "f"); err == nil {
		t.Error("100,000-deep JSON accepted")
	}
	deepPS := "Name : x\nPolicies : " + strings.Repeat("{@{a=", 100000) + "1" + strings.Repeat("}}", 100000) + "\n"
	var set objectSet
	if _, err := set.addArtifact([]byte(deepPS), "f"); err != nil {
		t.Fatal(err)
	}
	deepVFP := strings.Repeat("RULE : x\n  Conditions:\n", 50000)
	ParseVFPDump(deepVFP, "f", "p", map[string]*snapshot.VFPPort{})
}

func TestHundredThousandRows(t *testing.T) {
	var routes strings.Builder
	routes.WriteString("Active Routes:\nNetwork Destination        Netmask          Gateway       Interface  Metric\n")
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&routes, "  10.%d.%d.0    255.255.255.0   On-link   10.0.0.4   271\n", i/256%256, i%256)
	}
	if got := len(ParseRoutePrint(routes.String(), nil)); got != 100000 {
		t.Errorf("%d routes", got)
	}
	var records strings.Builder
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&records, "ID : %08X-0000-4000-8000-000000000000\nIPAddress : 10.1.%d.%d\nIsRemoteEndpoint : True\n\n", i, i/256%256, i%256)
	}
	var set objectSet
	if n, err := set.addArtifact([]byte(records.String()), "eps.txt"); err != nil || n != 100000 {
		t.Errorf("%d endpoints, %v", n, err)
	}
	var rules strings.Builder
	rules.WriteString("ITEM LIST\n===========\n  LAYER : L\n    GROUP : G\n")
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&rules, "      RULE : \n        Friendly name : R%d\n        Type : allow\n        Conditions:\n          Destination IP : 10.0.0.%d\n", i, i%256)
	}
	rules.WriteString("Command list-rule succeeded!\n")
	ports := ParseVFPDump(rules.String(), "f", "P", map[string]*snapshot.VFPPort{})
	if len(ports) != 1 || ports[0].RuleCount() != 100000 {
		t.Errorf("rules: %d ports", len(ports))
	}
}
