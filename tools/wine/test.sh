#!/bin/sh
# tools/wine/test.sh: make test-windows. Builds the Windows test binary of
# each package with Windows code and runs it under Debian's wine64 in the
# prefix tools/wine/setup.sh makes, printing a line per package as go test
# does (ok / FAIL) and the failing binary's output. Exit status 1 if any
# package fails.
#
# Packages: those with _windows.go files, a windows build constraint or a
# GOOS == "windows" branch, and cmd/diag. PKGS="capture bundle" runs only
# those; TESTFLAGS adds flags to each binary (e.g. TESTFLAGS=-test.v or
# TESTFLAGS='-test.run ^TestX$').
#
# Tests see DIAG_UNDER_WINE=1: a test may skip on it only for one of Wine's
# own limits (named in the skip), never for a defect of diag.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
go=${GO:-go}

wine64=${WINE64:-$(command -v wine64 || echo /usr/lib/wine/wine64)}
export WINE64="$wine64"
prefix=$("$here/setup.sh")

PKGS_GIVEN=${PKGS:-}
if [ -z "${PKGS:-}" ]; then
	PKGS=$({
		git ls-files '*_windows.go' | xargs -r -n1 dirname
		git grep -l -E '^//go:build .*windows|GOOS == "windows"' -- '*.go' | xargs -r -n1 dirname
		echo cmd/diag
	} | sort -u)
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/diag-test-windows.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
modpath=$("$go" list -m)

# Wine 8.0 answers NtSetInformationFile(FileDispositionInformationEx) with
# STATUS_NOT_IMPLEMENTED ("fixme:file:NtSetInformationFile Unsupported class
# (64)") where Windows before 10 1607 answers STATUS_INVALID_INFO_CLASS, so
# Go's Deleteat does not take its DeleteFile-style fallback and every
# os.RemoveAll of a non-empty directory fails with "unlinkat ...: Invalid
# function." (t.TempDir's clean-up fails nearly every test). That is Wine's
# limit, not diag's: the test binaries are built with an -overlay of the
# standard library's at_windows.go that takes the fallback on that status
# too. The release binary is not built this way (Windows 10+ has the class).
std=$("$go" env GOROOT)/src/internal/syscall/windows/at_windows.go
patched="$tmp/at_windows.go"
sed 's|case STATUS_INVALID_INFO_CLASS, |case STATUS_INVALID_INFO_CLASS, NTStatus(0xC0000002) /* STATUS_NOT_IMPLEMENTED: Wine 8.0 */, |' "$std" >"$patched"
if cmp -s "$std" "$patched"; then
	echo "test-windows: $std changed; the Wine RemoveAll overlay no longer applies" >&2
	exit 1
fi
printf '{"Replace":{"%s":"%s"}}\n' "$std" "$patched" >"$tmp/overlay.json"

export WINEPREFIX="$prefix" WINEDEBUG=-all WINELOADER="$wine64" WINEARCH=win64 DISPLAY=
export WINEDLLOVERRIDES="mscoree=;mshtml="
export DIAG_UNDER_WINE=1

# The stand-ins of the node's tools (tools/wine/standin) for the tests that
# run collectors and capture against them: built here, since a test binary
# under Wine has no Go to build them with; Wine sees / as Z:.
mkdir -p "$tmp/standin"
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 "$go" build -o "$tmp/standin/standin.exe" ./tools/wine/standin
for t in powershell vfpctrl pktmon netsh; do cp "$tmp/standin/standin.exe" "$tmp/standin/$t.exe"; done
export DIAG_STANDIN_BIN="Z:$(echo "$tmp/standin" | tr / '\\')"

rc=0
for pkg in $PKGS; do
	name=$(echo "$pkg" | tr / _)
	exe="$tmp/$name.test.exe"
	log="$tmp/$name.log"
	if ! GOOS=windows GOARCH=amd64 CGO_ENABLED=0 "$go" test -overlay "$tmp/overlay.json" -c -o "$exe" "./$pkg" >"$log" 2>&1; then
		echo "FAIL	$modpath/$pkg [build failed]"
		cat "$log"
		rc=1
		continue
	fi
	if [ ! -f "$exe" ]; then
		echo "?   	$modpath/$pkg	[no test files]"
		continue
	fi
	start=$(date +%s.%N)
	# The binary runs in the package's directory, as go test runs it
	# (testdata/ is relative); Wine maps it as Z:\... Wine makes a
	# console only for a program started from a terminal: the package that
	# tests console modes runs under script(1), which gives it one.
	# shellcheck disable=SC2086
	if [ "$pkg" = console ] && command -v script >/dev/null; then
		flags=""
		for f in ${TESTFLAGS:-}; do flags="$flags '$f'"; done
		(cd "$pkg" && script -qec "'$wine64' '$exe' -test.short -test.timeout 10m$flags" /dev/null </dev/null) >"$log" 2>&1
	else
		(cd "$pkg" && "$wine64" "$exe" -test.short -test.timeout 10m ${TESTFLAGS:-}) >"$log" 2>&1
	fi && status=ok || status=FAIL
	secs=$(echo "$start $(date +%s.%N)" | awk '{printf "%.3fs", $2-$1}')
	if [ $status = ok ]; then
		echo "ok  	$modpath/$pkg	$secs"
		case " ${TESTFLAGS:-} " in *" -test.v"*) cat "$log" ;; esac
	else
		cat "$log"
		echo "FAIL	$modpath/$pkg	$secs"
		rc=1
	fi
done
# The README's walkthrough with diag.exe as a process under Wine (collect
# against the tools' stand-ins, verify, analyze, anonymize), and analyze's
# JSON against the Linux build's; not with PKGS.
if [ -z "${PKGS_GIVEN:-}" ]; then
	start=$(date +%s.%N)
	log="$tmp/walkthrough.log"
	if DIAG_WINE64="$wine64" "$go" test -count=1 -v ./tools/wine/walkthrough >"$log" 2>&1; then
		status=ok
	else
		status=FAIL
		cat "$log"
		rc=1
	fi
	secs=$(echo "$start $(date +%s.%N)" | awk '{printf "%.3fs", $2-$1}')
	printf '%s\t%s/tools/wine/walkthrough (diag.exe under Wine)\t%s\n' "$( [ $status = ok ] && echo 'ok  ' || echo FAIL)" "$modpath" "$secs"
fi
"$(dirname "$wine64")/wineserver" -k 2>/dev/null || true
exit $rc
