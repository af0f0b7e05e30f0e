#!/usr/bin/env bash
# Builds the real control plane that `make test-cluster` runs diag against:
# kube-apiserver, etcd and kwok, each from the Go module proxy, each in a
# throwaway module, into a cache keyed by version (the API server takes about
# 15 minutes on two cores; the cache makes it once per machine).
#
#   tools/testcluster/build.sh            builds what is missing, prints the bin dir
#
# No kind and no envtest download: the binaries come from source, as
# Kubernetes' out-of-tree users build them.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-v1.34.4}   # k8s.io/kubernetes
STAGING_VERSION=v0${K8S_VERSION#v1}   # its staging repos: v1.34.4 -> v0.34.4
ETCD_VERSION=${ETCD_VERSION:-v3.6.16} # kwok's watches need progress requests (3.5+)
KWOK_VERSION=${KWOK_VERSION:-v0.8.0}

CACHE=${DIAG_TESTCLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/diag-testcluster}
BIN=$CACHE/bin
mkdir -p "$BIN"
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local

log() { echo "testcluster: $*" >&2; }

build_apiserver() {
  local out=$BIN/kube-apiserver-$K8S_VERSION
  [ -x "$out" ] && return
  local dir; dir=$(mktemp -d)
  trap 'rm -rf "$dir"' RETURN
  log "building kube-apiserver $K8S_VERSION (about 15 minutes on 2 cores)"
  (
    cd "$dir"
    printf 'module kasbuild\n\ngo 1.24\n\nrequire k8s.io/kubernetes %s\n' "$K8S_VERSION" > go.mod
    # k8s.io/kubernetes requires its staging repos at v0.0.0 and replaces them
    # with ./staging; outside its tree each must be replaced by its release.
    go mod download -json "k8s.io/kubernetes@$K8S_VERSION" >/dev/null
    local kmod; kmod=$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/$K8S_VERSION.mod
    for repo in $(sed -n 's#^[[:space:]]*\(k8s.io/[^ ]*\) => ./staging/.*#\1#p' "$kmod"); do
      go mod edit -replace "$repo=$repo@$STAGING_VERSION"
    done
    printf 'package main\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n\nfunc main() {}\n' > tools.go
    go mod tidy >/dev/null 2>&1 || go mod tidy
    rm tools.go
    go build -trimpath -ldflags=-s -o "$out.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  )
  mv "$out.tmp" "$out"
}

build_etcd() {
  local out=$BIN/etcd-$ETCD_VERSION
  [ -x "$out" ] && return
  local dir; dir=$(mktemp -d)
  trap 'rm -rf "$dir"' RETURN
  log "building etcd $ETCD_VERSION"
  (
    cd "$dir"
    printf 'module etcdbuild\n\ngo 1.24\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" > go.mod
    printf 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n' > main.go
    go mod tidy >/dev/null 2>&1 || go mod tidy
    go build -trimpath -ldflags=-s -o "$out.tmp" .
  )
  mv "$out.tmp" "$out"
}

build_kwok() {
  local out=$BIN/kwok-$KWOK_VERSION crds=$CACHE/crds-$KWOK_VERSION
  if [ ! -x "$out" ]; then
    local dir; dir=$(mktemp -d)
    log "building kwok $KWOK_VERSION"
    GOBIN=$dir go install -trimpath -ldflags=-s "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
    mv "$dir/kwok" "$out"
    rm -rf "$dir"
  fi
  # The Exec resource lets each test pod's exec run a stand-in collector
  # with its node's name: its CRD is part of kwok's module.
  if [ ! -f "$crds/kwok.x-k8s.io_execs.yaml" ]; then
    go mod download "sigs.k8s.io/kwok@$KWOK_VERSION"
    mkdir -p "$crds"
    cp "$(go env GOMODCACHE)/sigs.k8s.io/kwok@$KWOK_VERSION/kustomize/crd/bases/kwok.x-k8s.io_execs.yaml" "$crds/"
    chmod u+w "$crds"/*
  fi
}

case "${1:-all}" in
  apiserver) build_apiserver ;;
  etcd) build_etcd ;;
  kwok) build_kwok ;;
  all) build_etcd; build_kwok; build_apiserver ;;
esac
# What the tests read: one line each, NAME=path.
cat > "$CACHE/env" <<ENV
KUBE_APISERVER=$BIN/kube-apiserver-$K8S_VERSION
ETCD=$BIN/etcd-$ETCD_VERSION
KWOK=$BIN/kwok-$KWOK_VERSION
KWOK_CRDS=$CACHE/crds-$KWOK_VERSION
ENV
echo "$CACHE/env"
