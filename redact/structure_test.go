package redact

import (
	"bytes"
	"strings"
	"testing"
)

// Secrets found by the structure around them over lines and columns: each
// case's S3CR3T values go, its keep strings stay, in Text and in a Writer
// fed a few bytes at a time.
func TestStructureOverLines(t *testing.T) {
	cases := []struct {
		name, in string
		keep     []string
	}{
		{"SecureString variable assigned lines before",
			"$x = 'S3CR3Tone'\nWrite-Host step\n$c = New-Object PSCredential('u', (ConvertTo-SecureString $x -AsPlainText -Force))\n",
			[]string{"$x = 'REDACTED'", "Write-Host step", "ConvertTo-SecureString $x"}},
		{"SecureString variable on the same line, in XML",
			"<Data>$v = &apos;S3CR3Ttwo&apos;; $s = ConvertTo-SecureString -String $v -AsPlainText; Set-LocalUser -Name a</Data>\n",
			[]string{"&apos;REDACTED&apos;; $s", "; Set-LocalUser -Name a"}},
		{"SecureString variable piped, NetworkCredential",
			"$a = \"S3CR3Tpiped\"\n$s = $a | ConvertTo-SecureString -AsPlainText -Force\n$b = 'S3CR3Tnetcred'; $n = New-Object System.Net.NetworkCredential('u', $b)\n",
			[]string{"$s = $a | ConvertTo-SecureString", "NetworkCredential('u', $b)"}},
		{"a variable never handed to ConvertTo-SecureString", "$name = 'win-node-1'\nWrite-Host $name\n", []string{"$name = 'win-node-1'"}},
		{"YAML value on the next line", "auth:\n  username: u\nclientSecret:\n  S3CR3Tthree\n  S3CR3Tmore\nnext: 1\n", []string{"username: u", "next: 1"}},
		{"YAML list of secrets", "apiKeys:\n- S3CR3Tfour\n- \"S3CR3Tfive\"\nsecrets:\n  - name: keep-me\n", []string{"- name: keep-me"}},
		{"Format-List wrapped", "Name  : DB_PASSWORD\nValue : S3CR3Tsix\n        S3CR3Tseven\n\nName  : PATH\nValue : C:\\k\n        ;C:\\bin\n", []string{"        ;C:\\bin"}},
		{"CSV header", "\"User\",\"Password\",\"Server\"\n\"u\",\"S3CR3Teight\",\"srv\"\n", []string{"\"User\",\"Password\",\"Server\"", "\"srv\""}},
		{"CSV by semicolons", "\"Name\";\"Value\"\n\"DB_PASSWORD\";\"S3CR3Tsixteen\"\n\"NODE\";\"win-1\"\n", []string{"\"NODE\";\"win-1\""}},
		{"CSV Name,Value", "Name,Value\nAPI_TOKEN,S3CR3Tnine\nNODE,win-1\n", []string{"NODE,win-1"}},
		{"hash rocket", "class { 'x':\n  password => 'S3CR3Tten',\n  'min_password_length' => 14,\n}\n", []string{"'min_password_length' => 14"}},
		{"YAML flow list", "apiKeys: [S3CR3Tfourteen, \"S3CR3Tfifteen\"]\nports: [80, 443]\n", []string{"ports: [80, 443]"}},
		{"array of strings", "X-Auth-Token = [\"S3CR3Televen\"]\ncapabilities = [\"pull\"]\n", []string{"capabilities = [\"pull\"]"}},
		{"Key Vault secret", "{\n  \"id\": \"https://kv.vault.azure.net/secrets/db/0a1b\",\n  \"tags\": {\n    \"a\": \"b\"\n  },\n  \"value\": \"S3CR3Ttwelve\"\n}\n", []string{"\"a\": \"b\""}},
		{"bootstrap token", "k3m9q2.x7v4b8n1c5z6l0p3   23h\nS3CR3T a1b2c3.d4e5f6g7h8i9j0k1\n", []string{"k3m9q2."}},
		{"describe secret sizes", "Data\n====\ntoken:      953 bytes\npassword: S3CR3Tthirteen\n", []string{"token:      953 bytes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _ := Text([]byte(c.in))
			var b bytes.Buffer
			w := NewWriter(&b)
			for p := []byte(c.in); len(p) > 0; {
				n := min(3, len(p))
				w.Write(p[:n])
				p = p[n:]
			}
			w.Close()
			if !bytes.Equal(b.Bytes(), out) {
				t.Errorf("writer gave %q, Text %q", b.Bytes(), out)
			}
			for _, l := range strings.Split(c.in, "\n") {
				for _, f := range strings.Fields(l) {
					if strings.Contains(f, "S3CR3T") && !strings.HasPrefix(f, "S3CR3T ") && f != "S3CR3T" {
						s := strings.Trim(f, "\"',;&apos")
						if bytes.Contains(out, []byte(s)) {
							t.Errorf("%q left in %q", s, out)
						}
					}
				}
			}
			if strings.Contains(c.in, "a1b2c3.") && bytes.Contains(out, []byte("d4e5f6g7h8i9j0k1")) {
				t.Errorf("bootstrap token left: %q", out)
			}
			for _, k := range c.keep {
				if !bytes.Contains(out, []byte(k)) {
					t.Errorf("%q lost: %q", k, out)
				}
			}
		})
	}
}

// Look-alikes of the shapes above stay: names and numbers of the
// bootstrap token's shape, a CSV line that is a key and its value, a
// value too far from its ConvertTo-SecureString.
func TestStructureLookalikes(t *testing.T) {
	keep := []string{
		"image sha256.0123456789abcdef0123 pulled",
		"host abcdef.kubernetesdefault ok",
		"file build12.tar0123456789abcd.gz",
		"version 100000.1234567890123456",
	}
	for _, k := range keep {
		if out, _ := Text([]byte(k + "\n")); !bytes.Contains(out, []byte(k)) {
			t.Errorf("%q became %q", k, out)
		}
	}
	in := "$x = 'S3CR3Tfar'\n" + strings.Repeat("Write-Host step\n", heldLines+1) + "ConvertTo-SecureString $x -AsPlainText\n"
	if out, _ := Text([]byte(in)); !bytes.Contains(out, []byte("S3CR3Tfar")) {
		t.Errorf("a literal %d lines before was held that long: %q", heldLines+1, out)
	}
}
