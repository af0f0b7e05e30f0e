package redact

import (
	"os"
	"strings"
	"testing"
)

// Invented product keys planted in testdata/unattend-productkey.xml and
// below: none may be left, in UTF-8 or UTF-16LE.
var plantedProductKeys = []string{"XJ7QK-8MBTR-HD3WP-Q96CF-2KVG4", "MN4TB-QC7DW-9GRPX-VK6HJ-Y2TF8", "TW8GD-K3PXQ-6HMC9-RB2VF-7JYQ4"}

func TestRedactProductKeys(t *testing.T) {
	data, err := os.ReadFile("testdata/unattend-productkey.xml")
	if err != nil {
		t.Fatal(err)
	}
	in := string(data) + strings.Join([]string{
		`cscript //nologo %windir%\system32\slmgr.vbs /ipk TW8GD-K3PXQ-6HMC9-RB2VF-7JYQ4`,
		`DISM /Online /Set-ProductKey:TW8GD-K3PXQ-6HMC9-RB2VF-7JYQ4`,
		`<ProductKey><Key>TW8GD-K3PXQ-6HMC9-RB2VF-7JYQ4</Key><WillShowUI>Never</WillShowUI></ProductKey>`,
		`"OA3xOriginalProductKey": "TW8GD-K3PXQ-6HMC9-RB2VF-7JYQ4",`,
		`ProductKey=TW8GD-K3PXQ-6HMC9-RB2VF-7JYQ4`,
	}, "\n") + "\n"
	keep := []string{
		`<WillShowUI>OnError</WillShowUI>`, `<ComputerName>node1</ComputerName>`, `publicKeyToken="31bf3856ad364e35"`,
		`<Key>/IMAGE/INDEX</Key><Value>2</Value>`, `<AcceptEula>true</AcceptEula>`,
	}
	for enc, b := range map[string][]byte{"utf-8": []byte(in), "utf-16le": Decode(encodings["utf-16le bom"](in))} {
		out, counts := Text(b)
		for _, k := range plantedProductKeys {
			if strings.Contains(string(out), k) {
				t.Errorf("%s: product key %s left in", enc, k)
			}
		}
		for _, k := range keep {
			if !strings.Contains(string(out), k) {
				t.Errorf("%s: %s lost", enc, k)
			}
		}
		if n := countOf(counts, KindSecret); n != 7 {
			t.Errorf("%s: %d secrets counted, want 7 (%v)\n%s", enc, n, counts, out)
		}
	}
	for _, look := range []string{
		`"Id": "5C8D3FA2-7B4E-4A9C-8D2F-00000000000A"`, // a GUID
		`ABCDE-12345-ABCDE-12345-ABCDE`,                // letters a product key has not
		`BCDFG-HJKMP-QRTVW-XYBCD-FGHJK`,                // no digit
		`XJ7QK-8MBTR-HD3WP-Q96CF-2KVG4-7JYQ4`,          // six groups
		`xj7qk-8mbtr-hd3wp-q96cf-2kvg4`,                // lower case
		`<ProductKeyID>00330-80000-00000-AA123</ProductKeyID>`,
		`<Key>HKLM\SOFTWARE\Contoso</Key>`,
		`2024-01-01 12:00:00 [INFO] vfp port 7 rule added`,
	} {
		if out, _ := Text([]byte(look + "\n")); string(out) != look+"\n" {
			t.Errorf("%s\n  changed to %s", look, out)
		}
	}
}
