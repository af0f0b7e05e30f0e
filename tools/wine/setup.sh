#!/bin/sh
# tools/wine/setup.sh: a Wine prefix in which the Windows build of diag (and
# its test binaries) can run, for make test-windows. Prints the prefix's path.
# Idempotent: a prefix made before is kept, the DLL is rewritten only if it
# changed.
#
# Needs Debian's wine64 (apt-get install wine64; Wine 8.0 on Debian 12) and
# Go. No display is needed: DISPLAY is cleared and only 64-bit Wine is used.
#
# Stock Wine 8.0 cannot start a Go >= 1.22 binary: Go's runtime loads
# bcryptprimitives.dll!ProcessPrng, which Wine 8.0 lacks (Windows 10+ has
# it). tools/wine/prngdll writes a 1 KB DLL exporting ProcessPrng as a
# forward to advapi32.SystemFunction036 (RtlGenRandom), placed in the
# prefix's system32; see the comment there for why the forward is enough.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${WINEPREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/diag-wine}
go=${GO:-go}

# Debian installs the 64-bit loader as /usr/lib/wine/wine64 and puts only a
# wrapper (which prefers the absent 32-bit wine) on PATH.
wine64=${WINE64:-$(command -v wine64 || echo /usr/lib/wine/wine64)}
if [ ! -x "$wine64" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
	# A fresh machine (CI): Debian's package, as .ci/run installs chromium.
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq wine64 >/dev/null
	wine64=$(command -v wine64 || echo /usr/lib/wine/wine64)
fi
[ -x "$wine64" ] || { echo "setup.sh: wine64 not found (apt-get install wine64)" >&2; exit 1; }

export WINEPREFIX="$prefix" WINEDEBUG=-all WINELOADER="$wine64" WINEARCH=win64 DISPLAY=
# No Mono or Gecko installer prompts (nothing here needs .NET or a browser).
export WINEDLLOVERRIDES="mscoree=;mshtml="

sys32="$prefix/drive_c/windows/system32"
if [ ! -f "$prefix/system.reg" ] || [ ! -d "$sys32" ]; then
	mkdir -p "$prefix"
	"$wine64" wineboot -i >/dev/null 2>&1 || { echo "setup.sh: wineboot -i failed in $prefix" >&2; exit 1; }
	wineserver=$(dirname "$wine64")/wineserver
	[ -x "$wineserver" ] || wineserver=wineserver
	"$wineserver" -w 2>/dev/null || true
fi
[ -d "$sys32" ] || { echo "setup.sh: $sys32 missing after wineboot" >&2; exit 1; }

tmp="$sys32/.bcryptprimitives.dll.$$"
(cd "$root" && "$go" run ./tools/wine/prngdll "$tmp")
if cmp -s "$tmp" "$sys32/bcryptprimitives.dll"; then
	rm -f "$tmp"
else
	mv -f "$tmp" "$sys32/bcryptprimitives.dll"
fi

echo "$prefix"
