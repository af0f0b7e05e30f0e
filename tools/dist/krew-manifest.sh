#!/usr/bin/env bash
# Writes the krew plugin manifest (kubectl diag) for a release:
#   tools/dist/krew-manifest.sh VERSION URL_BASE SHA256SUMS
# URL_BASE is where the archives of make dist are published; each
# platform's entry names its archive there and its SHA-256 from SHA256SUMS.
set -euo pipefail
version=$1 base=${2%/} sums=$3
sum() { awk -v f="$1" '$2 == f {print $1}' "$sums"; }
cat <<YAML
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: diag
spec:
  version: ${version}
  shortDescription: Find why pod and service networking is broken on Windows nodes
  description: |
    diag collects HNS, VFP, host and Kubernetes state from Windows (and Linux)
    nodes through HostProcess pods (kubectl diag collect --cluster), and
    analyzes bundles, collectlogs output and pasted console text into
    findings with evidence and a fix (kubectl diag analyze).
  homepage: ${base}
  platforms:
YAML
for p in linux/amd64 linux/arm64 darwin/arm64 windows/amd64; do
  os=${p%/*} arch=${p#*/} ext=tar.gz bin=diag
  [ "$os" = windows ] && ext=zip bin=diag.exe
  file=diag-${version}-${os}-${arch}.${ext}
  s=$(sum "$file")
  [ -n "$s" ] || { echo "krew-manifest: $file not in $sums" >&2; exit 1; }
  cat <<YAML
  - selector:
      matchLabels: {os: ${os}, arch: ${arch}}
    uri: ${base}/${file}
    sha256: ${s}
    bin: ${bin}
YAML
done
