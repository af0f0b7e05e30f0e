package redact

import (
	"strings"
	"testing"
)

// TestRedactCommandLineSpellings: spellings of the command-line secrets
// the corpus holds in one form: a 7-Zip switch quoted whole ("-pPASS",
// as a script quoting its arguments writes it), certutil's -p, and
// PowerShell's -Name:X -Value:Y (a parameter and its argument joined by
// a colon), and Set-ItemProperty PATH NAME VALUE (by position).
func TestRedactCommandLineSpellings(t *testing.T) {
	for _, in := range []string{
		`7z.exe x "-pS3CR3TqZ4k" C:\t\o.7z`,
		`7z.exe x '-pS3CR3TqZ4k' C:\t\o.7z`,
		`"C:\Program Files\7-Zip\7z.exe" x -o"C:\out" "-pS3CR3T two words"`,
		`WinRAR.exe a "-hpS3CR3TqZ4k" a.rar`,
		`certutil -p S3CR3TqZ4k -importpfx c.pfx`,
		`certutil.exe -f -importpfx -p "S3CR3T qZ4k" My c.pfx`,
		`New-ItemProperty -Path $wl -Name DefaultPassword -Value:S3CR3TqZ4k`,
		`Set-ItemProperty -Path $wl -Name DefaultPassword -Value:"S3CR3T qZ4k"`,
		`Set-ItemProperty -Path $wl -Name:DefaultPassword -Value S3CR3TqZ4k`,
		`Set-ItemProperty -Path $wl -Name:'DefaultPassword' -Value:'S3CR3TqZ4k'`,
		`Set-ItemProperty $wl DefaultPassword S3CR3TqZ4k`,
		`PS C:\> Set-ItemProperty -Path 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Winlogon' DefaultPassword "S3CR3T qZ4k"`,
		`sp $wl 'DefaultPassword' 'S3CR3TqZ4k'`,
	} {
		out, counts := Text([]byte(in + "\n"))
		if strings.Contains(string(out), marker) || len(counts) == 0 {
			t.Errorf("%s\n  -> %s (counts %v)", in, out, counts)
		}
	}
	for _, keep := range []string{
		`7z.exe x "-p" a.7z`, `7z a "-pnot closed`, `7z.exe l "-slt" a.7z`,
		`certutil -store My`, `certutil -hashfile c.cer SHA256`, `certutil -ping`,
		`Set-ItemProperty -Path $wl -Name:AutoAdminLogon -Value:1`,
		`Set-ItemProperty -Path $wl -Name:DefaultPassword -Value:$pw`,
		`Set-ItemProperty $wl AutoAdminLogon 1`, `Set-ItemProperty $wl DefaultPassword $pw`,
		`Set-ItemProperty $wl DefaultPassword (Read-Host)`, `Get-ItemProperty $wl DefaultPassword`,
	} {
		if out, _ := Text([]byte(keep + "\n")); string(out) != keep+"\n" {
			t.Errorf("%s\n  changed to %s", keep, out)
		}
	}
}

// TestRedactListPairs: a secret-taking flag and its value as neighbours
// in a list (a container's args in a pod spec, a process's argv in JSON),
// and a key and its value in a logger's key/value list.
func TestRedactListPairs(t *testing.T) {
	for _, in := range []string{
		`"args": ["--token", "S3CR3Tqz4k9"],`,
		`"command": ["kubeadm", "join", "10.0.0.1:6443", "--token", "S3CR3Tqz4k9", "--discovery-token-ca-cert-hash", "sha256:aa"]`,
		`  args: ['--password', 'S3CR3T two words']`,
		`"argv": ["redis-server", "--requirepass", "S3CR3Tqz4k9"]`,
		`logger.go:42] "login" ["user", "admin", "password", "S3CR3Tqz4k9"]`,
		`["token", "S3CR3Tqz4k9"]`,
	} {
		out, counts := Text([]byte(in + "\n"))
		if strings.Contains(string(out), marker) || len(counts) == 0 {
			t.Errorf("%s\n  -> %s (counts %v)", in, out, counts)
		}
	}
	for _, keep := range []string{
		`"fields": ["password", "token", "key", "expiry"]`,
		`"args": ["--token-file", "/var/run/secrets/token"]`,
		`"args": ["--token", "--v=2"]`,
		`["tokenizer", "Words"]`,
		`"scopes": ["secret", "configmap"]`,
		`"args": ["--password", "$(DB_PASSWORD)"]`,
	} {
		if out, _ := Text([]byte(keep + "\n")); string(out) != keep+"\n" {
			t.Errorf("%s\n  changed to %s", keep, out)
		}
	}
}

// TestRedactToolSwitches: switches that take a secret only in the tool
// that names them (redis-cli -a, winrs -p:, reg.exe -d after -v NAME,
// ldap -w, samba -U user%PASS, psexec -p), in their other spellings.
func TestRedactToolSwitches(t *testing.T) {
	for _, in := range []string{
		`redis-cli -a "S3CR3T two" ping`, `redis-benchmark -q -a S3CR3Tqz4k`, `valkey-cli --pass S3CR3Tqz4k`,
		`127.0.0.1:6379[2]> auth default S3CR3Tqz4k`,
		`winrm set winrm/config/client -username:joiner -password:S3CR3Tqz4k`, `winrs -r:n1 -p:"S3CR3T two" cmd`,
		`reg add HKLM\x -v DefaultPassword -t REG_SZ -d "S3CR3T two" -f`, `reg import x.reg & reg add HKLM\x -v DefaultPassword -d S3CR3Tqz4k`,
		`ldapmodify -D cn=admin -wS3CR3Tqz4k -f x.ldif`, `ldappasswd -D cn=admin -W -a S3CR3Told -s S3CR3Tnew uid=x`,
		`rpcclient -U "admin%S3CR3Tqz4k" 10.0.0.1`, `net rpc shutdown -I 10.0.0.1 -U admin%S3CR3Tqz4k`,
		`psexec \\host -p S3CR3Tqz4k cmd`, `keytool -list -keystore k.jks -storepass S3CR3Tqz4k -keypass S3CR3Tqz4k`,
	} {
		out, counts := Text([]byte(in + "\n"))
		if strings.Contains(string(out), marker) || len(counts) == 0 {
			t.Errorf("%s\n  -> %s (counts %v)", in, out, counts)
		}
	}
	for _, keep := range []string{
		`redis-cli -u redis://default:REDACTED@cache:6379 ping`, `redis-cli -a`, `AUTH failed: WRONGPASS invalid username-password pair`,
		`docker run -v DefaultPassword -d nginx`, `psql -d postgres -v ON_ERROR_STOP=1`, `winrs -r:n1 -unencrypted cmd`,
		`net use Z: \\fs1\share /persistent:yes`, `smbclient //fs1/share -U joiner`, `echo 100%`,
	} {
		if out, _ := Text([]byte(keep + "\n")); string(out) != keep+"\n" {
			t.Errorf("%s\n  changed to %s", keep, out)
		}
	}
}
