#!/usr/bin/env bash
# Runs client-go's own black-box tests of tools/cache against fanout's
# informer package and prints the pass counts (see TestClientGoBlackBox in
# parity/clientgo/blackbox_test.go). client-go's test files are copied at
# run time from the Go module cache; nothing of them is stored here.
#
#   hack/clientgo-blackbox.sh                 # v0.37.2 and v0.32.3
#   hack/clientgo-blackbox.sh v0.30.14        # other versions
#   FANOUT_CLIENTGO_BLACKBOX_PKGS=informer,typeid hack/clientgo-blackbox.sh
#                                             # against the standalone package
#                                             # (the default) and the
#                                             # type-identical one
#   FANOUT_CLIENTGO_BLACKBOX_LINK=1 hack/clientgo-blackbox.sh v0.35.10
#                                             # also link that release
#                                             # (api, apimachinery) into
#                                             # fanout (make compat)
set -euo pipefail
cd "$(dirname "$0")/../parity/clientgo"
versions="${*:-v0.37.2 v0.32.3}"
export FANOUT_CLIENTGO_BLACKBOX="${versions// /,}"
# The parity test package is built with the client-go its module links
# (the workspace's newest release, or parity's go.mod without one); an
# older minor's tag leaves out the files that need a newer one.
tags=()
case "$(go list -m -f '{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}' k8s.io/client-go)" in
v0.35.*) tags=(-tags=clientgo035) ;;
v0.36.*) tags=(-tags=clientgo036) ;;
esac
go test "${tags[@]}" -count=1 -timeout 60m -run '^TestClientGoBlackBox$' -v .
