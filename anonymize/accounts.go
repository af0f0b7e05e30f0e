package anonymize

import "strings"

// Windows prints accounts as DOMAIN\user where no key names them: whoami
// (in lower case), icacls (FAB\ngarcia:(OI)(CI)(F)), an event's message.
// Where DOMAIN is a Windows domain the bundle states, the user beside it
// is a user name too. The domain may be learnt from a file read after,
// so the pairs wait until the harvest is done (resolveAccounts).

// maxPendingAccounts bounds the DOMAIN\user pairs remembered.
const maxPendingAccounts = 4096

// harvestAccounts remembers the DOMAIN\user and user@domain pairs of line.
func (a *Anonymizer) harvestAccounts(line []byte) {
	for i := 1; i+1 < len(line); i++ {
		if line[i] == '@' {
			a.harvestUPN(line, i)
			continue
		}
		if line[i] != '\\' || line[i-1] == '\\' || line[i+1] == '\\' {
			continue
		}
		s := i
		for s > 0 && i-s < 16 && (isAlnum(line[s-1]) || line[s-1] == '-') {
			s--
		}
		if s == i || i-s > 15 || s > 0 && (isAlnum(line[s-1]) || strings.IndexByte(`\.:/%$`, line[s-1]) >= 0) {
			continue
		}
		e := i + 1
		for e < len(line) && e-i <= 64 && (isAlnum(line[e]) || line[e] == '-' || line[e] == '.') {
			e++
		}
		user := strings.TrimRight(string(line[i+1:e]), ".")
		if user == "" || e-i > 64 || e < len(line) && line[e] == '\\' {
			continue // a path (C:\k\cni), not an account
		}
		if e+1 < len(line) && line[e] == ' ' && line[e+1] >= 'A' && line[e+1] <= 'Z' {
			continue // a group of several words (FAB\Domain Admins)
		}
		if len(a.pendingAccounts) >= maxPendingAccounts {
			return
		}
		if a.pendingAccounts == nil {
			a.pendingAccounts = map[[2]string]bool{}
		}
		a.pendingAccounts[[2]string{strings.ToLower(string(line[s:i])), user}] = true
	}
}

// harvestUPN remembers the user@domain around line[i] ('@'), the domain
// marked with a leading '@'.
func (a *Anonymizer) harvestUPN(line []byte, i int) {
	s := i
	for s > 0 && i-s <= 64 && (isAlnum(line[s-1]) || line[s-1] == '-' || line[s-1] == '.') {
		s--
	}
	e := i + 1
	for e < len(line) && e-i <= 255 && (isAlnum(line[e]) || line[e] == '-' || line[e] == '.') {
		e++
	}
	user, dom := strings.Trim(string(line[s:i]), "."), strings.ToLower(strings.Trim(string(line[i+1:e]), "."))
	if user == "" || !strings.Contains(dom, ".") || i-s > 64 || len(a.pendingAccounts) >= maxPendingAccounts {
		return
	}
	if a.pendingAccounts == nil {
		a.pendingAccounts = map[[2]string]bool{}
	}
	a.pendingAccounts[[2]string{"@" + dom, user}] = true
}

// resolveAccounts registers the users of the pairs whose domain is a
// Windows domain the bundle states.
func (a *Anonymizer) resolveAccounts() {
	for p := range a.pendingAccounts {
		if d, ok := strings.CutPrefix(p[0], "@"); ok {
			if a.isDNSDomain(d) && !builtinUsers[strings.ToLower(p[1])] && validName(p[1]) {
				a.AddName(KindUser, p[1])
			}
			continue
		}
		if a.isWinDomain(p[0]) && !builtinUsers[strings.ToLower(p[1])] {
			if h, ok := strings.CutSuffix(p[1], "$"); ok {
				a.AddName(KindHost, h)
			} else {
				a.AddName(KindUser, p[1])
			}
		}
	}
	a.pendingAccounts = nil
}

func (a *Anonymizer) isWinDomain(low string) bool {
	p, ok := a.names.names[low]
	if !ok {
		p, ok = a.names.stated[low]
	}
	return ok && strings.HasPrefix(p, KindWinDomain+"-")
}

// isDNSDomain: low is a DNS domain the bundle states.
func (a *Anonymizer) isDNSDomain(low string) bool {
	p, ok := a.names.names[low]
	if !ok {
		p, ok = a.names.stated[low]
	}
	return ok && strings.HasPrefix(p, KindDomain+"-")
}
