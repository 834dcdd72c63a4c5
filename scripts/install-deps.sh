#!/bin/sh
# Install the Debian packages listed in vendor/debian-packages.tsv that are missing
# or older than the listed version. Idempotent: prints nothing and changes nothing
# when all are present. Uses apt-get only (Debian's archive is the only network used).
#
# usage: scripts/install-deps.sh [build|test|dev|all]   (default: test = build + test)
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
manifest="$here/vendor/debian-packages.tsv"
want=${1:-test}

case "$want" in
build) uses="build" ;;
test) uses="build test" ;;
dev | all) uses="build test dev" ;;
*)
    echo "install-deps.sh: unknown set '$want' (expected build, test, dev or all)" >&2
    exit 2
    ;;
esac

if [ ! -r "$manifest" ]; then
    echo "install-deps.sh: cannot read $manifest" >&2
    exit 1
fi

missing=""
while IFS="$(printf '\t')" read -r pkg version use _rest; do
    case "$pkg" in '' | '#'* | package) continue ;; esac
    case " $uses " in *" $use "*) ;; *) continue ;; esac
    have=$(dpkg-query -W -f='${Status} ${Version}' "$pkg" 2>/dev/null || true)
    case "$have" in
    "install ok installed "*)
        have=${have#install ok installed }
        if dpkg --compare-versions "$have" ge "$version"; then continue; fi
        echo "install-deps.sh: $pkg $have is older than $version, upgrading" >&2
        ;;
    esac
    missing="$missing $pkg"
done <"$manifest"

[ -z "$missing" ] && exit 0

echo "install-deps.sh: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "install-deps.sh: not root and no sudo; please install:$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # word splitting of the package list is intended
if ! $sudo apt-get install -y -q --no-install-recommends $missing >/dev/null; then
    # A fresh machine has no package lists yet: fetch them once and try again.
    $sudo apt-get update -q >/dev/null
    # shellcheck disable=SC2086
    $sudo apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
