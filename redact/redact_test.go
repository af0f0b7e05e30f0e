package redact

import (
	"bytes"
	"strings"
	"testing"
)

// Each case plants a secret, marked S3CR3T..., in one format; the secret
// must go, the evidence around it (addresses, names, paths) must stay.
func TestTextRemovesSecrets(t *testing.T) {
	cases := []struct {
		name, in string
		kind     string
		keep     []string
	}{
		{"kubeconfig token", "users:\n- name: calico-windows\n  user:\n    token: S3CR3TeyJhbGciOi\n", KindToken, []string{"calico-windows", "token: REDACTED"}},
		{"kubeconfig client key", "    client-certificate-data: LS0tQ2VydA==\n    client-key-data: S3CR3TLS0tLS1CRUdJTg==\n", KindPrivateKey, []string{"client-certificate-data: LS0tQ2VydA=="}},
		{"PEM key", "cert ok\n-----BEGIN RSA PRIVATE KEY-----\nS3CR3TMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter\n", KindPrivateKey, []string{"cert ok", "after", "BEGIN RSA PRIVATE KEY"}},
		{"PEM key cut by a log tail", "x\n-----BEGIN PRIVATE KEY-----\nS3CR3TMIIEvQIBADANBg\n", KindPrivateKey, []string{"x\n"}},
		{"PEM key in JSON", `{"private_key": "-----BEGIN PRIVATE KEY-----\nS3CR3TMIIE\n-----END PRIVATE KEY-----\n", "client_email": "sa@p.iam"}`, KindPrivateKey, []string{"sa@p.iam"}},
		{"bearer header in a log", "I1122 GET https://10.96.0.1:443/api/v1/nodes Authorization: Bearer S3CR3Tabcdefgh123\n", KindToken, []string{"https://10.96.0.1:443/api/v1/nodes"}},
		{"JWT in a log", "I1122 auth.go:12] token=x using eyJhbGciOiJSUzI1NiIs.eyJpc3MiOiJrdWJlcm5ldGVz.sigS3CR3T_part\n", KindToken, []string{"using"}},
		{"password flag", "kube-proxy.exe --hostname-override=win-1 --password=S3CR3Tpw --source-vip=10.244.1.2\n", KindPassword, []string{"--source-vip=10.244.1.2", "--hostname-override=win-1"}},
		{"token flag with space", "flanneld --kube-api-url https://10.0.0.1 --token S3CR3Ttok --iface 10.0.0.4\n", KindToken, []string{"--iface 10.0.0.4"}},
		{"PowerShell parameter", "New-Thing -Name x -Password 'S3CR3T pw with space' -Force\n", KindPassword, []string{"-Name x", "-Force"}},
		{"PowerShell variable", "$env:CALICO_DATASTORE_TYPE = \"kubernetes\"\n$env:ETCD_PASSWORD = \"S3CR3Tetcd\"\n$env:KUBE_NETWORK = \"Calico.*\"\n", KindPassword, []string{"kubernetes", "Calico.*"}},
		{"JSON client secret", `{"cloud":"AzurePublicCloud","aadClientId":"abc","aadClientSecret":"S3CR3T\"quoted\"","vnetName":"v"}`, KindSecret, []string{`"aadClientId":"abc"`, `"vnetName":"v"`}},
		{"YAML secret key", "apiVersion: v1\nkind: Config\nsecretKey: S3CR3Tkey\n", KindSecret, []string{"kind: Config"}},
		{"URL password", "etcd endpoints: https://root:S3CR3Tpass@10.0.0.5:2379\n", KindPassword, []string{"https://root:", "@10.0.0.5:2379"}},
		{"AWS access key", "aws_access_key_id = AKIAS3CR3TABCDEFGHIJ\n", KindCloudCred, nil},
		{"AWS key ID alone", "found AKIAIOSFODNNS3CR3TAB in env\n", KindCloudCred, []string{"found", "in env"}},
		{"Azure account key", "DefaultEndpointsProtocol=https;AccountName=diag;AccountKey=S3CR3Tk3y==;EndpointSuffix=core.windows.net\n", KindCloudCred, []string{"AccountName=diag", "EndpointSuffix"}},
		{"SAS signature", "upload https://acct.blob.core.windows.net/c/b.zip?sv=2020&sig=S3CR3TsigXYZ%3D&se=1\n", KindCloudCred, []string{"sv=2020", "&se=1"}},
		{"pod env in JSON", `{"env":[{"name":"KUBE_NETWORK","value":"Calico.*"},{"name":"DB_PASSWORD","value":"S3CR3Tdb"}]}`, KindPassword, []string{`"value":"Calico.*"`}},
		{"pod env in YAML", "env:\n- name: API_TOKEN\n  value: S3CR3Tapi\n- name: NODE\n  value: win-1\n", KindToken, []string{"value: win-1"}},
		{"INI password", "[db]\nhost=10.0.0.9\npassword=S3CR3Tini\n", KindPassword, []string{"host=10.0.0.9"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, counts := Text([]byte(c.in))
			if strings.Contains(string(out), "S3CR3T") {
				t.Fatalf("secret left in:\n%s", out)
			}
			found := false
			for _, n := range counts {
				if n.Kind == c.kind && n.Count > 0 {
					found = true
				}
			}
			if !found {
				t.Errorf("counts %v, want a %s", counts, c.kind)
			}
			for _, k := range c.keep {
				if !strings.Contains(string(out), k) {
					t.Errorf("lost %q:\n%s", k, out)
				}
			}
		})
	}
}

// Evidence that looks a little like a secret must stay: HNS JSON, a
// kube-proxy command line, file paths of tokens, nulls.
func TestTextKeepsEvidence(t *testing.T) {
	for _, in := range []string{
		`{"ID":"5A2F","Name":"Calico","Type":"Overlay","ManagementIP":"10.0.2.15","DrMacAddress":"66-a5-cc-c1-86-97","Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.20.30.11"}}]}`,
		"kube-proxy.exe --network-name=Calico --source-vip=100.244.206.65 --feature-gates=WinOverlay=true --enable-dsr=false\n",
		"tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token\nsecretName: calico-node\npassword: null\n",
		"The token is expired and will be refreshed\n",
		"Get-HnsNetwork | ConvertTo-Json -Depth 20\n",
	} {
		out, counts := Text([]byte(in))
		if string(out) != in || len(counts) != 0 {
			t.Errorf("changed %q\nto %q (%v)", in, out, counts)
		}
	}
}

func TestTextCountsEachValue(t *testing.T) {
	_, counts := Text([]byte("password: a1234\npassword: b1234\ntoken: c1234\n"))
	want := map[string]int{KindPassword: 2, KindToken: 1}
	if len(counts) != len(want) {
		t.Fatalf("counts %v", counts)
	}
	for _, c := range counts {
		if want[c.Kind] != c.Count {
			t.Errorf("%s: %d, want %d", c.Kind, c.Count, want[c.Kind])
		}
	}
}

func TestIsBinary(t *testing.T) {
	for in, want := range map[string]bool{
		"plain text\n":              false,
		"\x1f\x8b\x08\x00gzip":      true,
		"PK\x03\x04zip":             true,
		"\x0a\x0d\x0d\x0apcapng":    true,
		"t\x00e\x00x\x00t\x00":      true,
		"{\"json\": \"é ünicode\"}": false,
		"2024-05-01 kubelet started\n" + strings.Repeat("\x00", 600) + "2024-05-01 after the crash\n": false, // NUL padding
		"ETW\x00\x02\x00\x00\x01\x10\x00\x00\x00\x00\x03\x04\x05\x06\x07\x00\x00\x0e\x0f":             true,
	} {
		if got := IsBinary([]byte(in)); got != want {
			t.Errorf("IsBinary(%q) = %v", in, got)
		}
	}
}

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{"token: abc", "-----BEGIN PRIVATE KEY-----\nx", "https://a:b@c", "--password=x", `{"aadClientSecret":"x\"y"}`,
		"password: |\n  a\n b\n", "- name: X_TOKEN\n  value: a b\n", "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n-----END RSA PRIVATE KEY-----\n",
		"Private-Lines: 2\nQUJD\nREVG\n", "Cookie: a=b; c=d", "Authorization: Basic dXNlcjpwYXNz", "net user x y", "/u:a /p:b",
		"mysql -u root -pabc", "curl -u a:b", "Server=x;Password=a b;", `"Env": ["DB_PASSWORD=a b"]`, "password = a b c",
		"tls.key: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdTFT",
		`"args": ["--token", "x y"]`, `"password", "Xy1"`, "redis-cli -a x", "127.0.0.1:6379> AUTH u x",
		"winrs -u:a -p:b", "reg add k -v DefaultPassword -d x", "smbclient -U 'a%b'", "ldapsearch -wx",
		"<ProductKey>\n<Key>BCDF2-BCDF2-BCDF2-BCDF2-BCDF2</Key>\n</ProductKey>",
		"\"User\",\"Password\"\n\"u\",\"p\"\"q\"\n", "Name,Value\nA_TOKEN,x\n", "$x = 'a'\nConvertTo-SecureString $x\n",
		"k:\n  - a\n  - b\nclientSecret:\n  x\n  y\n", "A_TOKEN   aaaa\n          bbbb\n", "h = [\"a\", \"b\"]\nkey => 'x'\n",
		"{\n \"id\": \"https://k.vault.azure.net/secrets/a\",\n \"value\": \"x\"\n}\n", "ab12cd.0123456789abcdef\n",
		"$p = &apos;x&apos;; ConvertTo-SecureString $p"} {
		f.Add([]byte(s))
	}
}

func FuzzText(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _ := Text(in)
		// Redaction is idempotent: a second pass finds nothing more.
		again, counts := Text(out)
		if string(again) != string(out) {
			t.Errorf("second pass changed %q to %q (%v)", out, again, counts)
		}
	})
}

// FuzzWriter: however the input is cut into writes, the output is Text's.
func FuzzWriter(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		want, _ := Text(in)
		var out bytes.Buffer
		w := NewWriter(&out)
		for i, p := 0, in; len(p) > 0; i++ {
			n := min(1+i%5, len(p))
			w.Write(p[:n])
			p = p[n:]
		}
		w.Close()
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("writer gave %q, Text %q", out.Bytes(), want)
		}
	})
}
