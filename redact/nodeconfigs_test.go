package redact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The files of testdata/node-configs are a Windows node's configuration
// files (containerd, kubelet, Calico, ASP.NET, cloud providers) and the
// pastes a support engineer attaches to a ticket (PowerShell history and
// transcripts, kubectl and az output, CSV exports), each with secrets
// planted beside the look-alikes that must stay.

// TestNodeConfigs: registry credentials in containerd's TOML,
// azure.json, docker's config.json, kubeconfig auth-provider/exec/key
// variants, OpenStack cloud-config, Helm values and an etcd URL in a
// ConfigMap go; digests, GUIDs, resource IDs, public certificates and
// numeric settings named like secrets stay.
func TestNodeConfigs(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"containerd-config.toml",
			[]string{"Tulip6Granite+Q", "YWNycHVsbDpUdWxpcDZHcmFuaXRlK1E=", "Osprey2Canyon-W"},
			[]string{"sha256:3f06ed5b2e1ed1c1a5a3ddbbc84b0d8d31b6e4a1a41dd48f4e2f6d5bcf1e5a7c", "insecure_skip_verify = false"}},
		{"azure.json",
			[]string{"Lyr8Q~Wombat.Sundial_77xQ", "Beacon4Fjord"},
			[]string{"72f988bf-86f1-41af-91ab-2d7cd011db47", "d4c3b2a1-0000-4111-8222-933344445555", "/subscriptions/0b1f6471-1bf0-4dda-aec3-111122223333/resourceGroups/rg-net"}},
		{"docker-config.json",
			[]string{"bXlhY3I6Q29iYWx0OUhlcm9uIVo=", "ZGV2b3BzOkx5bnhSaXZlcjMz", "Pelican7Marsh"},
			[]string{"\"credsStore\": \"wincred\""}},
		{"kubeconfig-variants.yaml",
			[]string{"Marigold3Plinth", "Sorrel9Gable", "Hemlock2Vane~x", "Drizzle5Quarry", "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdk1hcmlnb2xkUGxpbnRoS2V5", "Gravel8Mitten"},
			[]string{"certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM1ekNDQWMrZ0F3SUJBZ0lCQURBTkJna3Foa2lHOXcwQkFRc0ZBREFWTVJNd0VRWURWUVFERXdwcmRXSmwKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=", "client-id: 80faf920-1908-4b52-b5ef-a8e7bedfc67a", "value: 72f988bf-86f1-41af-91ab-2d7cd011db47"}},
		{"cloud-config.ini",
			[]string{"Osier4Ridge"},
			[]string{"tenant-id=72f988bf86f141af91ab2d7cd011db47", "subnet-id=1f3a9e5b-7d2f-4a8c-0e1b-3d5f7a9c2e4b"}},
		{"helm-values.yaml",
			[]string{"Thrush3Meadow", "Velvet6Orchard"},
			[]string{"tokenTTL: 3600", "passwordPolicy: strict"}},
		{"calico-node.yaml",
			[]string{"Wren2Hollow"},
			[]string{"veth_mtu: \"1410\"", "datastore_type: kubernetes"}},
	})
}

// TestTicketPastes: PowerShell history (SecureString, PSCredential,
// net use, cmdkey, kubectl and helm flags), a scheduled task's arguments,
// a Name/Value environment table, cmd's set, an event log CSV and a
// kubelet log with a bearer token, SAS and S3 signed URLs go; thumbprints,
// digests, PasswordLastSet and token counts stay.
func TestTicketPastes(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"ps-history.txt",
			[]string{"Saffron7Trellis", "Walnut3Ember", "Cobalt8Spire", "Quince4Lantern", "Garnet2Willow", "Plover6Thimble", "Bramble1Kettle"},
			[]string{"PasswordLastSet,MaxPasswordAge", "Read-Host -AsSecureString"}},
		{"sched-task.xml",
			[]string{"Juniper9Rafter"},
			[]string{"-Thumbprint 3F2A9C1B7E4D5A6F8091A2B3C4D5E6F708192A3B", "<UserId>S-1-5-18</UserId>"}},
		{"env-table.txt",
			[]string{"Nutmeg4Cascade", "Lichen8Tower", "Pippin2Harbor"},
			[]string{"TOKEN_COUNT                    4096", "KUBE_NETWORK                   Calico.*"}},
		{"set-output.txt",
			[]string{"Zm9vYmFyYmF6cXV4Tm90QVJlYWxLZXlCdXRMb25nRW5vdWdoVG9Mb29rUmVhbDEyMzQ1Njc4OTA=", "YWNycHVsbDpBbWJlcjNLaXRl", "Rowan5Basin"},
			[]string{"COMPUTERNAME=AKSWIN000001"}},
		{"events.csv",
			[]string{"Anvil5Sparrow", "abcdef.0123456789abcdef"},
			[]string{"\"4688\",\"Microsoft-Windows-Security-Auditing\""}},
		{"kubelet.log",
			[]string{"eyJhbGciOiJSUzI1NiIsImtpZCI6IlJldmlld0tleSJ9", "Q2FyZGluYWxSaXZldFNpZ25hdHVyZUJ5dGVz", "Vx7%2BKq3Lm9Np1Rt5Sy2Uz8Ab4Cd6Ef0Gh3Ij7Kl%3D", "6c1f3a9e5b7d2f4a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a"},
			[]string{"sha256:7a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e4f6a8b", "tokens=512", "sv=2022-11-02"}},
	})
}

// TestWebConfigMachineKey: ASP.NET's <machineKey validationKey=…>
// is the key that signs view state and forms-authentication tickets
// (whoever holds it forges a login); decryptionKey beside it goes, the
// validationKey must too. The connection strings' Password and AccountKey
// go; validation="SHA1" (an algorithm's name) stays.
func TestWebConfigMachineKey(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"web.config",
			[]string{"Heron5Chalice", "q7Vw2Xk9Lm4Np8Rt1Sy6Uz3Ab5Cd0Ef7Gh2Ij9Kl4Mn8Op1Qr6St3Uv0Wx5Yz7Ab2Cd9Ef4Gh1Ij6Kl8Mn==",
				"9F3A1C7E5B2D4F6A8C0E1B3D5F7A9C2E4B6D8F0A1C3E5B7D9F2A4C6E8B0D1F3A5C7E9B", "A1C3E5B7D9F2A4C6E8B0D1F3A5C7E9B2D4F6A8C0E1B3D5F7\""},
			[]string{"validation=\"SHA1\"", "Initial Catalog=orders", "AccountName=stlogs01"}},
	})
}

// TestSecureStringVariable: PowerShell that makes a credential
// from a variable ($p = '…'; ConvertTo-SecureString $p -AsPlainText) keeps
// the plain text in the assignment, whatever the variable's name; script
// block logging (event 4104, exported as XML with &apos;) and transcripts
// carry it so. The piped form ('…' | ConvertTo-SecureString) already goes.
func TestSecureStringVariable(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"securestring-var.ps1",
			[]string{"Pumice8Tiller", "Coot4Valley"},
			[]string{"ConvertTo-SecureString $p -AsPlainText -Force"}},
		{"scriptblock-4104.xml",
			[]string{"Pumice8Tiller"},
			[]string{"Invoke-Command -ComputerName akswin000001"}},
	})
}

// TestXMLEscapedQuotes: a value quoted with &apos; in an event
// exported as XML goes, but the redaction must end at the closing &apos;,
// not swallow the next statement ("; Set-LocalUser" was lost).
func TestXMLEscapedQuotes(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"scriptblock-apos.xml",
			[]string{"Quail5Bristle"},
			[]string{"; Set-LocalUser -Name kadm -Password"}},
	})
}

// TestAppSettingsPrefixedKey: ASP.NET's appSettings name a
// secret by the add element's key, which OWIN/ADAL samples write with a
// prefix (ida:ClientSecret, ida:AppKey, ida:Password). An unprefixed
// key="StoragePassword" goes; the prefixed ones must too, and the client
// ID, the tenant and MaxPasswordAge stay.
func TestAppSettingsPrefixedKey(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"owin-web.config",
			[]string{"Skua2Vellum", "Dunnock5Parapet", "Linnet8Cupola"},
			[]string{"value=\"80faf920-1908-4b52-b5ef-a8e7bedfc67a\"", "value=\"contoso.onmicrosoft.com\"", "key=\"MaxPasswordAge\" value=\"90\""}},
	})
}

// TestTokenTables: tables a support engineer pastes whose rows
// hold credentials: "kubeadm token list" (TOKEN column: a bootstrap token
// that joins a node, the same value --token=… carries and redaction
// removes there; seen left in every encoding) and Get-AzStorageAccountKey
// (Value column: the storage account's keys, 88 base64 characters; these
// go). The rows' TTL, usages, groups,
// key names and permissions, and kubectl's list of secret names, stay.
func TestTokenTables(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "node-configs", "token-tables.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) > 1 && (f[0] == "key1" || f[0] == "key2") {
			keys = append(keys, f[1])
		}
	}
	if len(keys) != 2 {
		t.Fatalf("storage keys in the fixture: %d", len(keys))
	}
	checkPlanted(t, "node-configs", []plantedCase{
		{"token-tables.txt",
			append([]string{"x7v4b8n1c5z6l0p3"}, keys...),
			[]string{"authentication,signing", "system:bootstrappers:kubeadm:default-node-token", "bootstrap-token-k3m9q2   bootstrap.kubernetes.io/token", "Full        11/1/2026"}},
	})
}

// TestContainerdHostsHeaders: containerd's hosts.toml sends
// extra registry headers, each a TOML array of strings. Authorization's
// Basic value goes; a header named for a token or a key
// (X-Registry-Token, X-Api-Key) must go as well. Seen: both left.
func TestContainerdHostsHeaders(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"hosts.toml",
			[]string{"YWNycHVsbDpCcmFtYmxpbmc0VGVhbA==", "Siskin2Gallery", "Redpoll7Sconce"},
			[]string{"capabilities = [\"pull\", \"resolve\"]", "skip_verify = false", "server = \"https://myacr.azurecr.io\""}},
	})
}

// TestDescribeSecretSizes: "kubectl describe secret" prints each
// key's size, never its value ("token: 953 bytes"): a look-alike that
// tells the reader the token is there and not empty. Seen: "token:
// 953 bytes" redacted while "ca.crt: 1099 bytes" beside it stays.
func TestDescribeSecretSizes(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"describe-secret.txt",
			nil,
			[]string{"token:      953 bytes", "password:  24 bytes", "ca.crt:     1099 bytes", "namespace:  11 bytes"}},
	})
}

// TestKeyVaultSecretShow: "az keyvault secret show" prints the
// secret itself as "value", beside an id under /secrets/ (and for a
// certificate's secret, contentType application/x-pkcs12: the PFX with
// its private key, in base64). Seen: both values left; the name, the id
// and the attributes stay.
func TestKeyVaultSecretShow(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"keyvault-secrets.json",
			[]string{"Nightjar4Trestle", "MIIKZAIBAzCCCiAGCSqGSIb3DQEHAaCCChEEggoNMIIKCTCCBg8GCSqGSIb3DQEHAaCCBgAEggX8"},
			[]string{"\"name\": \"acr-pull-password\"", "\"recoveryLevel\": \"Recoverable+Purgeable\"", "https://kv-aks01.vault.azure.net/secrets/acr-pull-password/0f1e2d3c4b5a69788796a5b4c3d2e1f0"}},
	})
}

// TestMoreShapesHold: PowerShell and CLI commands that take a
// secret (schtasks /RP, sc.exe password=, docker login -p, az login -p,
// -Headers @{Authorization=…}, openssl -passout pass:, kubeadm join
// --token), HTTP headers in logs (Proxy-Authorization, subscription and
// API keys, Vault tokens, cookies, a fragment's id_token, logrus maps),
// a kubeconfig as JSON (oidc auth-provider, exec args and env), and
// connection strings of several dialects go; thumbprints, file hashes,
// digests, application IDs, the kubeadm CA hash, stars and policy names
// stay.
func TestMoreShapesHold(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"ps-commands.txt",
			[]string{"Ginger5Hatchet", "Larch7Pebble", "Mallow3Ferry", "Tansy8Wicket", "Sumac2Orbit", "YWRtaW46UGVvbnk0VGFsb24=", "Bittern6Loom", "Yarrow9Sickle", "Aster4Coulter", "Ember1Juniper", "Fennel2Rook", "r6t8y0u2i4o6p8a0", "Cicada3Lintel", "Osprey9Gimlet", "Marten5Bellows"},
			[]string{"Password                       : ********", "PasswordLastSet                : 11/2/2026 3:14:00 PM", "Thumbprint                     : 5E8A1F3C7B9D2E4F6A8C0B1D3E5F7A9C2B4D6E8F", "--discovery-token-ca-cert-hash sha256:8d2a4c6e8f0b1d3f5a7c9e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f"}},
		{"http-headers.log",
			[]string{"c3F1aWQ6S2VzdHJlbDRBbHBpbmU=", "5c2e8a1f9b3d47e6a0c4f8b2d6e1a3c7", "9f1c3e5a7b2d4f6e8a0c1b3d5e7f9a2c", "hvs.CAESIGrebeNuthatchWarblerVireo", "Osprey5Falcon", "CfDJ8Loon3Heron7Egret", "Cormorant3Shag", "U2lnbmF0dXJlSGVyb25FZ3JldA", "Petrel6Skimmer", "Swift8Martin", "ZGVwbG95OlN3YWxsb3c1Um9vaw=="},
			[]string{"Content-Length: 512", "X-Request-Id: 7c1d2e3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f", "ETag: \"0x8DCF1A2B3C4D5E6\""}},
		{"kubeconfig-raw.json",
			[]string{"Razorbill6Quoin", "Grosbeak9Lintel", "Vireo3Plinth", "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0t", "Tattler2Arbor", "Bushtit5Cornice", "Verdin7Gable"},
			[]string{"\"client-certificate-data\": \"DATA+OMITTED\"", "\"client-id\": \"kubernetes\"", "\"--server-id\", \"6dae42f8-4368-4678-94ff-3960e28e3630\""}},
		{"conn-strings.yaml",
			[]string{"Vireo5Tamarack", "Bx9Lm2Np4Rt6Sy8Uz0Ab1Cd3Ef5Gh7Ij9Kl2Mn4Op6Q=", "Loris4Canter", "Egret7Sorrel"},
			[]string{"ssl=True,abortConnect=False", "SharedAccessKeyName=RootManageSharedAccessKey", "sslmode=require"}},
		{"lookalikes.txt",
			nil,
			[]string{"Certificate Hash             : 5e8a1f3c7b9d2e4f6a8c0b1d3e5f7a9c2b4d6e8f", "{4dc3e181-e14b-4a21-b022-59fc669b0914}", "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855", "servercore@sha256:a1c3e5b7d9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3", "Password hash algorithm       : PBKDF2", "TokenLifetime                 : 01:00:00", "MaxPasswordAge 42.00:00:00", "KeyId                         : 3b8f2c1a-9d4e-4f6a-8b0c-1e3d5f7a9c2e", "Serial                        : 33000001B2C3D4E5F60718293A000000000001"}},
	})
}

// TestSignedURLs: signed URLs grant access to whoever holds them
// until they expire. Azure SAS (sig=, SharedAccessSignature=) and Google's
// V4 signature go; CloudFront's Signature= (with Expires= and
// Key-Pair-Id=) must too. Seen: CloudFront's left. The expiry, the key
// pair's ID and the object's path stay.
func TestSignedURLs(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"signed-urls.txt",
			[]string{"Wr9XhQkT2vLm4Np8Rt1Sy6Uz3Ab5Cd0Ef7Gh2Ij9Kl4", "Qm4Lp7Rt2Sy9Uz1Ab3Cd5Ef8Gh0Ij6Kl2Mn4Op7Qr", "7f3a9c1b2e4d6f8a0c1b3d5e7f9a2c4e6b8d0f1a3c5e7b9d2f4a6c8e0b1d3f5a", "Nu4Grebe~Loon7Heron-Egret9Bittern_Crane2Stork"},
			[]string{"https://d111111abcdef8.cloudfront.net/cni.zip?Expires=1796000000", "https://stlogs01.blob.core.windows.net/diag?sp=racwl"}},
	})
}

// TestWrappedSecretValue: PowerShell wraps a long value at the
// console's width (Format-Table -Wrap, Format-List), carrying its end on
// the next lines, indented to the value's column. The first line's part
// goes; the rest of the same value must too. Seen: the continuation lines
// (Murrelet4…, Scaup2…) left. PATH's continuation, no secret, stays.
func TestWrappedSecretValue(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"env-wrapped.txt",
			[]string{"Xq8~Kestrel.Tundra-Quill_91zz", "Murrelet4Auklet7PuffinGuillemot", "Wigeon3Pintail8Gadwall", "Scaup2Pochard5Ruddy"},
			[]string{";C:\\Program Files\\containerd", "PATH                           C:\\Windows\\system32;C:\\Windows;C:\\k"}},
	})
}

// TestYAMLValueOnNextLine: YAML lets a key's value start on the
// next line, indented: a plain or quoted scalar, or a list of them (a
// list of API keys). A block scalar (password: >-) goes; the others
// must too. Seen: Tropicbird5…, Prion3… and both list items left. A list
// of names under imagePullSecrets and a note stay.
func TestYAMLValueOnNextLine(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"value-next-line.yaml",
			[]string{"Shearwater4Fulmar", "Tropicbird5Albatross", "Prion3Shearwater9Petrel", "Jaeger8Noddy", "Skua4Tern"},
			[]string{"plain text that stays", "imagePullSecrets:\n  - name: acr-pull"}},
	})
}

// TestHashRocket: Puppet manifests (and Ruby, Perl, PHP
// configuration) pair a key and its value with "=>". Seen: password =>
// '…' and 'datastore_password' => "…" left. The registry, the user name
// and a numeric policy stay.
func TestHashRocket(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"puppet-node.pp",
			[]string{"Meadowlark4Lark", "Flicker2Sapsucker"},
			[]string{"registry => 'myacr.azurecr.io'", "'password_min_length' => 14"}},
	})
}

// TestEnvExportCsv: "Get-ChildItem env: | Export-Csv" writes
// each variable as "Name","Key","Value" (a DictionaryEntry's three
// properties). Seen: the Key column (the name again) replaced by REDACTED
// and the Value column, the secret, left.
func TestEnvExportCsv(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"env-export.csv",
			[]string{"Gyrfalcon6Merlin", "Kestrel2Hobby"},
			[]string{"\"NUMBER_OF_PROCESSORS\",\"NUMBER_OF_PROCESSORS\",\"2\"", "#TYPE System.Collections.DictionaryEntry"}},
	})
}

// TestCsvColumns: a CSV names a secret by its header: a
// "Password" column (a credential list exported with Export-Csv), and
// Name,Value rows written without quotes (PowerShell 7's ConvertTo-Csv
// -UseQuotes Never). Seen: the header after "Password" replaced by
// REDACTED ("Server" lost) and the password in the row left; the
// unquoted row's value left.
func TestCsvColumns(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"credentials.csv",
			[]string{"Peregrine4Falcon"},
			[]string{"\"UserName\",\"Password\",\"Server\"", "\"myacr.azurecr.io\""}},
		{"env-unquoted.csv",
			[]string{"Kestrel2Hobby"},
			[]string{"Name,Value"}},
	})
}

// TestKubeadmTokenCreate: "kubeadm token create" prints the new
// bootstrap token alone on a line, in kubeadm's shape ([a-z0-9]{6} "."
// [a-z0-9]{16}), with no key or flag naming it. Seen: left. The version
// line stays.
func TestKubeadmTokenCreate(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"kubeadm-token-create.txt",
			[]string{"v6b8n0m2k4j6h8g0"},
			[]string{"kubeadm token create --ttl 2h", "v1.30.4"}},
	})
}

// TestCliXmlHolds: Export-Clixml names each property in its N
// attribute: a plain <S N="Password">, <S N="ApiToken"> and a DPAPI
// <SS N="SecurePassword"> go; the user name and <I32
// N="PasswordLength"> stay.
func TestCliXmlHolds(t *testing.T) {
	checkPlanted(t, "node-configs", []plantedCase{
		{"cred-clixml.xml",
			[]string{"Nuthatch6Creeper", "Gnatcatcher3Verdin", "01000000d08c9ddf0115d1118c7a00c04fc297eb0100000044f2a1b3c5d7e9f1"},
			[]string{"<S N=\"UserName\">acrpull</S>", "<I32 N=\"PasswordLength\">16</I32>"}},
	})
}
