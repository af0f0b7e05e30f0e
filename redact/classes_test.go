package redact

import "testing"

// The files of testdata/secret-classes plant one secret of each class the
// redactor promises beside the look-alikes that must stay, each file a
// shape in which a class was once left in the clear.

// TestFileRedactsEveryClass: new planted secrets of every class the
// redactor promises (secret-taking flags in process lists, PowerShell
// setting a secret, key value configuration, Name/Value tables, reg
// query, unattend.xml, URLs with a password, JSON/YAML/INI/XML keys,
// provider tokens, key blocks, kubeconfig) go in every encoding, and the
// look-alikes beside them stay.
func TestFileRedactsEveryClass(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{
		{"agent.ini",
			[]string{"Pine3Lattice", "Moss5Anvil"},
			[]string{"token_ttl = 3600", "password_min_length = 12", "port = 8443"}},
		{"app-settings.json",
			[]string{"Fig3~Leaf.Rope_8", "Kz1Yx2Wv3Ut4Sr5Qp6On7Ml8Kj9Ih0Gf1Ed2Cb3Az4Yx5Wv6Ut7Sr8Qp9On0Ml1Kj2Ih3Gf4Ed5Cb6=="},
			[]string{"\"b77a5c561934e089\"", "\"tokenExpirySeconds\": 3600", "\"passwordLength\": 16", "A1B2C3D4E5F60718293A4B5C6D7E8F9012345678", "sha256:fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9", "6f9619ff-8b86-d011-b42d-00c04fc964ff"}},
		{"autounattend.xml",
			[]string{"UABhAHMAcwB3ADAAcgBkADEAMgAzAEEAZABtAGkAbgBpAHMAdAByAGEAdABvAHIAUABhAHMAcwB3AG8AcgBkAA==", "Thistle8Harp", "Juniper4Wand", "Quartz5Violin"},
			[]string{"publicKeyToken=\"31bf3856ad364e35\"", "<PlainText>false</PlainText>", "<Name>kops</Name>"}},
		{"certs.txt",
			[]string{"MHcCAQEEIFZhbmlsbGFQbGFudDl0cmVlRm94R2xvdmUyMDI2S2V5RGF0YaAKBggq"},
			[]string{"MIIBszCCAVmgAwIBAgIUQm9ndXNDZXJ0aWZpY2F0ZUZvclRlc3QwCgYIKoZIzj0E"}},
		{"deploy.yaml",
			[]string{"Harvest7Moon", "Crimson5Owl", "Falcon8Reef", "Nimbus4Cedar", "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJna3Foa2lHOXcwQkFRRUZBQVNDQktjd2dnU2pBZ0VBQW9JQkFRQzcKLS0tLS1FTkQgUFJJVkFURSBLRVktLS0tLQo="},
			[]string{"value: \"3\"", "name: web-creds", "kind: Secret"}},
		{"env.txt",
			[]string{"Xk2Lm9Np4Qr7St1Uv6Wx3Yz8Ab5Cd0Ef2Gh7Ij4Kl9Mn6Op1Qr3St8Uv5Wx0Yz2Ab7Cd4Ef9Gh==", "Saffron2Quill", "7c1d2e3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f", "ghp_R2d2C3poBb8Yoda9Luke0Leia1Han2Chewie"},
			[]string{"NUMBER_OF_PROCESSORS           2", "C:\\ProgramData"}},
		{"fluent-bit.conf",
			[]string{"violet canyon river", "dGhpc2lzbm90YXJlYWxrZXlidXRsb29rc2xpa2VvbmUxMjM0NTY3ODkwYWJjZGVm==", "Cobalt88Fern"},
			[]string{"Port            9880", "4f3e2d1c-0b9a-8877-6655-443322110011", "HTTP_User       shipper"}},
		{"kubeconfig",
			[]string{"LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0t", "k8sTokenQx7Wz3Vn5Bm9"},
			[]string{"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1J", "server: https://10.1.0.4:6443"}},
		{"procs.txt",
			[]string{"Vq4nTw8zLp", "Harbor9Lamp", "Plk0rnJx77", "Wsx3Edc4Rfv", "Qm8~Zr2.Tx5_Lp9-Kd3", "Fj3kL9mQ2w", "Yellow7Kite"},
			[]string{"--port=10250", "--max-pods=30", "4120"}},
		{"services.log",
			[]string{"Topaz7Crane", "Indigo3Shell", "Amber9Lynx", "glpat-Xy7Zq8Wr9Vs0Tu1Pn2Mo", "Rk3%2BmN8pQ2sT5vW7xY9zA1bC3dE5fG7hI9jK1lM3nO5%3D", "Pq1Rs2Tu3Vw4Xy5Za6Bc7De8Fg9Hi0Jk1Lm2No3Pq4Rs5Tu6Vw7Xy8Za9Bc0De1Fg2Hi3Jk4Lm5No6Pq7==", "AKIAZ7Q4XK2M9PLR3TSW", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzqK8Lm4Np2", "xoxb-918273645012-564738291034-QwErTyUiOpAsDfGhJkLzXcVb", "Zq9Xw8Ev7Rt6Yu5Io4Pa3Sd2", "eyJhbGciOiJSUzI1NiIsImtpZCI6Ik1ZeVBwIn0.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50Iiwic3ViIjoic3lzdGVtOnNhOmRlZmF1bHQ6YnVpbGRlciJ9.Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG9mcmVk", "github_pat_11ABCDEFG0123456789_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTu"},
			[]string{"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "tokens=4096", "3A1F9C0E7B2D4F6A8C0E2B4D6F8A0C2E4B6D8F0A", "10.1.4.30:5672", "corpstore.blob.core.windows.net/logs/a.zip"}},
		{"setdump.txt",
			[]string{"npm_Qx8Wc7Ve6Rb5Tn4Ym3Ul2Ik1Oj0Ph9Ag8Sf", "Opal4~River.Stone_7"},
			[]string{"PROCESSOR_ARCHITECTURE=AMD64", "ALLUSERSPROFILE=C:\\ProgramData"}},
		{"transcript.txt",
			[]string{"Gr33nTeaPot!", "Zb7Yx6Wv5Ut4", "Mq2Ns4Pt6Rv8", "Fo9~Gp8.Hq7_Ir6-Js5", "Bluebird42Sky", "Ochre5Maple"},
			[]string{"PasswordLastSet", "PasswordRequired", "-LocalPort 10250"}},
		{"web.config",
			[]string{"Hy6Gt5Fr4De3Sw2Aq1Zx0Cv9Bn8Mm7Lk6Jh5Gf4Ds3Aa2Qw1Er0Ty9Ui8Op7As6Df5Gh4Jk3Ll2Zx1Cv==", "Tangerine9Slate", "Copper1Whale", "Velvet2Comet"},
			[]string{"publicKeyToken=\"b03f5f7f11d50a3a\"", "<add key=\"Timeout\" value=\"30\" />"}},
		{"winlogon.txt",
			[]string{"Marble Stair 71", "Pebble3Drum", "Lantern6Opal"},
			[]string{"PasswordExpiryWarning    REG_DWORD    0x5", "DefaultUserName    REG_SZ    kadmin"}},
	})
}

// TestJSONPairsOverLines: kubectl get pods -o json prints a
// container's env and args one item a line. A secret named by its
// neighbour must go there as it goes on one line
// ({"name":"DB_PASSWORD","value":"…"} and ["--password", "…"] are
// redacted). Seen: SQL_PASSWORD's and STRIPE_API_KEY's values and the
// value after "--db-password" left in every encoding.
func TestJSONPairsOverLines(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{{"pod-env.json",
		[]string{"Orchid5Basalt", "Maple9Cinder", "Lotus2Drift"},
		[]string{`"value": "on"`, `"--log-level",`, `"info"`, `"0.0.0.0:8080",`, "sha256:4355a46b19d348dc2f57c046f8ef63d4538ebb936000f3c9ee954a27460dd865"}}})
}

// TestXMLValueAttributes: an XML element naming a secret holds it
// in a value attribute (<password value="…"/>), and .NET settings hold it
// in <value> after <setting name="…Secret">, on one line as well as over
// several. Seen: all three left.
func TestXMLValueAttributes(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{{"app.exe.config",
		[]string{"Heron4Quarry", "Bramble2Cove", "Dune7Sparrow", "Gull8Meadow"},
		[]string{`<port value="3128"/>`, "<value>30</value>", `publicKeyToken="30ad4fe6b2a6aeed"`}}})
}

// TestSetItemPropertyPositional: Set-ItemProperty takes Path, Name
// and Value by position; a secret set that way must go as -Value's does.
// Seen: DefaultPassword's value left after a backtick-escaped path and
// after -Name with a positional value; and "-Value x; Restart-Computer"
// loses its semicolon (the next command is glued to the placeholder).
func TestSetItemPropertyPositional(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{{"autologon-transcript.txt",
		[]string{"Saffron8Kettle", "Ivory3Lagoon", "Russet6Pylon"},
		[]string{"Winlogon AutoAdminLogon 1", "; Restart-Computer -Force", "Select-Object AutoAdminLogon, DefaultUserName"}}})
}

// TestSlackAppToken: Slack's app-level tokens (xapp-1-…, socket
// mode) are a Slack token shape as xoxb- is; gitleaks' slack-app-token
// rule finds it. Seen: left where no secret word stands before it.
func TestSlackAppToken(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{{"slack-bot.log",
		[]string{"xapp-1-A04KQ7ZP2MN-5120384761029-8f3e2a1b7c6d5e4f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f"},
		[]string{"wss://wss-primary.slack.com/link"}}})
}

// TestMaskedPlaceholders: "Password : ********" is what a tool
// prints instead of a password: no secret, and the support engineer reads
// it as "a password was set". It must stay. Seen: every one replaced by
// REDACTED (and counted as a password removed).
func TestMaskedPlaceholders(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{{"masked.txt",
		nil,
		[]string{"Password : ********", "Password: ******** (masked)", "password=**** (set)"}}})
}

// TestARMParameterSecrets: an ARM parameters file (how AKS-engine,
// CAPZ and Windows node templates are deployed) holds each secret under
// a key naming it, in an object: "adminPassword": { "value": "…" }. Seen:
// all three values left.
func TestARMParameterSecrets(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{{"azuredeploy.parameters.json",
		[]string{"Slate4Otter!Q", "Brook7~Heath.Flint_2", "Cedar1Gorge#"},
		[]string{`"adminUsername": { "value": "azureuser" }`, `"vmSize": { "value": "Standard_D4s_v3" }`, `"kubernetesVersion": { "value": "1.30.4" }`}}})
}

// TestXMLCDATAAndPrefixes: an XML element naming a secret holds
// it in CDATA, or carries a namespace prefix (<cfg:Password>); both are
// the element's text as much as <Password>x</Password> is. Seen: both left.
func TestXMLCDATAAndPrefixes(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{{"agent.xml",
		[]string{"Willow3Brine", "Hazel6Quill"},
		[]string{"<cfg:RetryCount>5</cfg:RetryCount>", "<Thumbprint>3A1F9C0E7B2D4F6A8C0E2B4D6F8A0C2E4B6D8F0A</Thumbprint>", "https://ingest.corp.example:8443"}}})
}

// TestPowerShellNameValueObjects: PowerShell writes a Name/Value
// (Key/Value) pair of the environment as JSON one property a line
// (Get-ChildItem env: | ConvertTo-Json) and as a hashtable's string in
// logs (@{Name=…; Value=…}). The name says the value is a secret, as the
// table form's does (which is redacted). Seen: every value left.
func TestPowerShellNameValueObjects(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{
		{"env-convertto-json.json",
			[]string{"Spruce2Falcon", "Quill9Harbor"},
			[]string{`"Value":  "C:\\ProgramData"`, `"Value":  "2"`}},
		{"env-objects.log",
			[]string{"Ember5Grove", "Tundra8Wick"},
			[]string{"@{Name=KUBE_NETWORK; Value=Calico.*}"}},
	})
}

// TestWrappedCommandLines: Format-List wraps a long CommandLine
// (Get-CimInstance Win32_Process | Format-List) onto lines indented to
// the value's column; a secret-taking flag at the end of one line takes
// its value from the next. Seen: the value of --user (ctr) and of
// --client-secret left on the continuation line.
func TestWrappedCommandLines(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{{"processes-fl.txt",
		[]string{"Auburn3Kestrel", "Marigold6Pike"},
		[]string{"mcr.microsoft.com/windows/nanoserver:ltsc2022", "--verbose --interval 30", "10250 --max-pods 30", "ProcessId       : 5188"}}})
}

// TestArchivePasswordInArgumentLists: 7-Zip's -p takes the
// archive's password; handed over as a list (Start-Process -ArgumentList
// 'a','-p…', a container's args after a 7z command) it is the same
// command line. Seen: the -p value of -ArgumentList 'a','-p…' and of the
// container's args left (a plain "7z a -p…" line, and the @(…) form, are
// redacted).
func TestArchivePasswordInArgumentLists(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{
		{"archive-transcript.txt",
			[]string{"Linen4Comet", "Onyx2Ridge"},
			[]string{"'-oC:\\k\\restore'", "Select-Object Name, Length"}},
		{"archive-job.json",
			[]string{"Twine6Basin"},
			[]string{`"C:\\out\\logs.7z"`, `"corp.azurecr.io/tools:1.4"`}},
	})
}

// TestYAMLArgvOverLines: kubectl get pods -o yaml prints a
// container's args and command one item a line ("- --api-token" then
// "- value"), as JSON does one a line. Seen: both values left.
func TestYAMLArgvOverLines(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{{"pod-args.yaml",
		[]string{"Saber3Kelp", "Ferry5Mango"},
		[]string{"- https://ingest.corp.example:8443", `- "30"`, "image: corp.azurecr.io/shipper:2.1"}}})
}

// TestSecretsInProse: a script's own output names the password a
// few words before it ("New password for kadmin: …", "Password for
// svc_backup set to …", "password changed to "…""), each value random
// (letters, digits and a symbol mixed), as the prose rule requires. Seen:
// all three left; only a value right after the secret word and a link
// word ("password is …") goes.
func TestSecretsInProse(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{{"prose-transcript.txt",
		[]string{"Tq7#vLp2Wz", "Rk4!mNs8Yd", "Hx3$jQe9Ub"},
		[]string{"Resetting the local administrator of win-node-7", "by reset-node-admin.ps1", "Done: 2 accounts updated, PasswordLastSet refreshed, 0 errors"}}})
}

// TestKubernetesSecretData: every value of a Kubernetes Secret's
// data and stringData is a secret, whatever its key (DB_CONN, signing,
// webhook), in YAML and in JSON; a ConfigMap's data is not. Seen: every
// value left.
func TestKubernetesSecretData(t *testing.T) {
	checkPlanted(t, "secret-classes", []plantedCase{
		{"k8s-secret.yaml",
			[]string{"U2VydmVyPWRiO1VzZXIgSWQ9c2E7UGFzc3dvcmQ9UGVyY2g3VHVsaXA7", "R2FybmV0NFdpbGxvdw==", "Mica2Heron"},
			[]string{"name: orders-db", "LOG_LEVEL: info", "DB_HOST: db.shop.svc"}},
		{"k8s-secret.json",
			[]string{"U2VydmVyPWRiO1VzZXIgSWQ9c2E7UGFzc3dvcmQ9UGVyY2g3VHVsaXA7", "R2FybmV0NFdpbGxvdw=="},
			[]string{`"name":"orders-db"`}},
	})
}
