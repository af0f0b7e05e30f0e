package collectors

import (
	"bytes"
	"context"
	"fmt"

	"github.com/wincni/diag/hostexec"
	"github.com/wincni/diag/redact"
)

// PowerShell scripts the Windows collectors run. They are constants: no
// value from outside is ever spliced into them, and they only read (Get-*
// cmdlets, the registry, CIM queries). Each prints one JSON document; arrays
// are forced with -InputObject @(...) so that one adapter is still a list.
// Output is UTF-8 so that localized adapter names survive the pipe.
const psPrelude = `$ErrorActionPreference = 'Stop'; $ProgressPreference = 'SilentlyContinue'; [Console]::OutputEncoding = [Text.Encoding]::UTF8; `

const psAdapters = `ConvertTo-Json -Depth 5 -InputObject @(Get-NetAdapter -IncludeHidden | ForEach-Object {
  $a = $_
  $ips = @(Get-NetIPAddress -InterfaceIndex $a.ifIndex -ErrorAction SilentlyContinue | ForEach-Object { [ordered]@{ IPAddress = $_.IPAddress; PrefixLength = $_.PrefixLength; AddressFamily = "$($_.AddressFamily)" } })
  $ipif = Get-NetIPInterface -InterfaceIndex $a.ifIndex -AddressFamily IPv4 -ErrorAction SilentlyContinue
  $gws = @(Get-NetRoute -InterfaceIndex $a.ifIndex -DestinationPrefix '0.0.0.0/0' -ErrorAction SilentlyContinue | ForEach-Object { $_.NextHop })
  [ordered]@{ Name = $a.Name; InterfaceDescription = $a.InterfaceDescription; ifIndex = $a.ifIndex; MacAddress = $a.MacAddress;
    Status = "$($a.Status)"; MtuSize = $a.MtuSize; NlMtu = $ipif.NlMtu; Forwarding = "$($ipif.Forwarding)"; Dhcp = "$($ipif.Dhcp)";
    IPAddresses = $ips; Gateways = $gws }
})`

const psRoutes = `ConvertTo-Json -Depth 3 -InputObject @(Get-NetRoute -ErrorAction SilentlyContinue | ForEach-Object {
  [ordered]@{ DestinationPrefix = $_.DestinationPrefix; NextHop = $_.NextHop; InterfaceAlias = $_.InterfaceAlias; ifIndex = $_.ifIndex;
    RouteMetric = $_.RouteMetric; InterfaceMetric = $_.InterfaceMetric; AddressFamily = "$($_.AddressFamily)"; Protocol = "$($_.Protocol)"; Store = "$($_.Store)" }
})`

// Rules for the VXLAN ports, and UDP rules open to every port and program
// (they allow 4789 too); the application filter says whether a rule is
// limited to a program.
// psFirewall reads the effective policy (ActiveStore: local rules and
// Group Policy together): the profiles, the rules whose port filter can
// cover the VXLAN, kubelet and kube-proxy health ports or a TCP port of
// the default NodePort range (healthCheckNodePorts), any-protocol rules
// (Protocol Any filters have no ports), with their remote address filter,
// and each network's category.
const psFirewall = `$profiles = @(Get-NetFirewallProfile -PolicyStore ActiveStore | ForEach-Object { [ordered]@{ Name = $_.Name; Enabled = "$($_.Enabled)"; DefaultInboundAction = "$($_.DefaultInboundAction)"; DefaultOutboundAction = "$($_.DefaultOutboundAction)" } })
$want = @{ UDP = @('4789', '8472'); TCP = @('10250', '10256'); Any = @() }
$rules = @(foreach ($proto in 'UDP', 'TCP', 'Any') { Get-NetFirewallPortFilter -PolicyStore ActiveStore -Protocol $proto -ErrorAction SilentlyContinue | Where-Object { $lp = @($_.LocalPort); @($lp | Where-Object { $want[$proto] -contains $_ -or ($proto -eq 'TCP' -and $_ -match '^\d+$' -and [int]$_ -ge 30000 -and [int]$_ -le 32767) }).Count -gt 0 -or $lp -contains 'Any' -or ($lp -match '-') } | ForEach-Object {
  $r = $_ | Get-NetFirewallRule
  if ($r.Enabled -ne 'True' -and @($_.LocalPort) -contains 'Any') { return }
  $app = $r | Get-NetFirewallApplicationFilter
  if (@($_.LocalPort) -contains 'Any' -and $app.Program -ne 'Any' -and ($proto -eq 'UDP' -or $app.Program -notmatch '(kubelet|kube-proxy)\.exe$')) { return }
  $addr = $r | Get-NetFirewallAddressFilter
  [ordered]@{ Name = $r.Name; DisplayName = $r.DisplayName; Enabled = "$($r.Enabled)"; Direction = "$($r.Direction)"; Action = "$($r.Action)"; Profile = "$($r.Profile)";
    Protocol = $_.Protocol; LocalPort = @($_.LocalPort); RemotePort = @($_.RemotePort); Program = $app.Program; RemoteAddress = @($addr.RemoteAddress) }
} })
$networks = @(Get-NetConnectionProfile -ErrorAction SilentlyContinue | ForEach-Object { [ordered]@{ InterfaceAlias = $_.InterfaceAlias; NetworkCategory = "$($_.NetworkCategory)" } })
ConvertTo-Json -Depth 4 -InputObject ([ordered]@{ Profiles = $profiles; Rules = $rules; ConnectionProfiles = $networks; Collected = @('UDP:4789', 'UDP:8472', 'TCP:10250', 'TCP:10256', 'TCP:30000-32767') })`

const psOS = `$cv = Get-ItemProperty 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion'
$hf = @(Get-HotFix -ErrorAction SilentlyContinue | ForEach-Object { [ordered]@{ HotFixID = $_.HotFixID; InstalledOn = "$($_.InstalledOn)" } })
ConvertTo-Json -Depth 3 -InputObject ([ordered]@{ Hostname = $env:COMPUTERNAME; ProductName = $cv.ProductName; DisplayVersion = $cv.DisplayVersion;
  EditionID = $cv.EditionID; InstallationType = $cv.InstallationType; CurrentBuild = [int]$cv.CurrentBuild; UBR = [int]$cv.UBR; Hotfixes = $hf })`

// kube-proxy's command line from the running process, else from the
// service's parameters (nssm keeps them in AppParameters).
const psKubeProxy = `$p = @(Get-CimInstance Win32_Process -Filter "Name='kube-proxy.exe'" | ForEach-Object { $_.CommandLine })
if ($p.Count -gt 0) { $p; exit 0 }
$s = Get-ItemProperty 'HKLM:\SYSTEM\CurrentControlSet\Services\kube-proxy\Parameters' -ErrorAction SilentlyContinue
if ($s -and $s.AppParameters) { 'kube-proxy.exe ' + $s.AppParameters }`

// The HNS event channels (Admin: errors HNS reports, such as failed
// network creation; Operational: what it did), newest first, bounded; and
// the Service Control Manager's events about HNS (its crashes and restarts).
const psHNSEvents = `$events = @(foreach ($log in 'Microsoft-Windows-Host-Network-Service-Admin', 'Microsoft-Windows-Host-Network-Service-Operational') {
  Get-WinEvent -LogName $log -MaxEvents 500 -ErrorAction SilentlyContinue | ForEach-Object {
    [ordered]@{ Log = $log; TimeCreated = $_.TimeCreated.ToUniversalTime().ToString('o'); Id = $_.Id; Level = [int]$_.Level; LevelName = "$($_.LevelDisplayName)"; Message = $_.Message } } })
# HNS crashes are the Service Control Manager's to tell (networkhealth.ps1 CheckHnsCrash).
$events += @(Get-WinEvent -FilterHashtable @{ LogName = 'System'; ProviderName = 'Service Control Manager' } -MaxEvents 2000 -ErrorAction SilentlyContinue |
  Where-Object { $_.Message -like '*Host Network Service*' } | ForEach-Object {
    [ordered]@{ Log = 'System'; TimeCreated = $_.TimeCreated.ToUniversalTime().ToString('o'); Id = $_.Id; Level = [int]$_.Level; LevelName = "$($_.LevelDisplayName)"; Message = $_.Message } })
ConvertTo-Json -Depth 3 -InputObject ([ordered]@{ Events = $events })`

// psScripts lists every script, for the read-only test.
var psScripts = map[string]string{"adapters": psAdapters, "routes": psRoutes, "firewall": psFirewall, "os": psOS, "kube-proxy": psKubeProxy, "hns-events": psHNSEvents}

// psArgs is the argument list that runs one script.
func psArgs(script string) []string {
	return []string{"-NoLogo", "-NoProfile", "-NonInteractive", "-Command", psPrelude + script}
}

// runPowerShell runs script and returns its output as UTF-8 text (psText).
func runPowerShell(ctx context.Context, e *Env, script string) ([]byte, error) {
	data, err := e.Runner.Run(ctx, "powershell.exe", psArgs(script)...)
	if err != nil {
		return nil, fmt.Errorf("powershell: %w", err)
	}
	return psText(data), nil
}

// psText is the one decoding step between PowerShell and a parser.
// PowerShell 5.1 writes a UTF-8 byte order mark once [Console]::OutputEncoding
// is UTF-8 (psPrelude sets it), again each time a host or profile sets it
// anew, after whatever a profile or a module printed first (a blank line);
// a console left in Unicode, or a redirection, gives UTF-16LE with or
// without FF FE. So: UTF-16 becomes UTF-8 (redact.Decode), and the byte
// order marks at the start and at the start of each line go, with the
// blank space before the first character.
func psText(data []byte) []byte {
	data = redact.Decode(data)
	const bom = "\ufeff"
	for {
		t := bytes.TrimLeft(data, " \t\r\n")
		if !bytes.HasPrefix(t, []byte(bom)) {
			break
		}
		data = t[len(bom):]
	}
	if bytes.Contains(data, []byte("\n"+bom)) {
		data = bytes.ReplaceAll(data, []byte("\n"+bom), []byte("\n"))
	}
	return bytes.TrimLeft(data, " \t\r\n")
}

// psCollector runs a script and stores its JSON.
func psCollector(file, script string) func(context.Context, *Env, *Output) error {
	return func(ctx context.Context, e *Env, out *Output) error {
		data, err := runPowerShell(ctx, e, script)
		if err != nil {
			return err
		}
		if !isJSON(data) {
			if first := hostexec.FirstLine(string(data)); first != "" {
				return fmt.Errorf("powershell printed no JSON for %s: %s", file, first)
			}
			return fmt.Errorf("powershell printed nothing for %s (no output, no error: is powershell.exe the real one?)", file)
		}
		return out.WriteText(file, data)
	}
}
