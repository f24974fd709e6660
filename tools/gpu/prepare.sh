#!/usr/bin/env bash
# Packs into .gpu/ what building and testing pyfss needs on a linux/amd64 machine with a
# GPU but with neither a Go toolchain nor a network (tools/gpu/run.sh runs there):
#
#   go.tar.xz      the Go toolchain that runs here, cut to what `go build` with cgo and
#                  `go test` use: the go command, the compile/asm/cgo/link/vet tools and
#                  the standard library's sources (Go compiles it on first use)
#   gomod.tar.xz   a module cache holding exactly the packages the build imports
#                  (the library, its tests, the tools module's gopy and goimports)
#   wheels/        the Python build requirements, as wheels for pip --no-index
#   python3.12-include.tar.xz
#                  CPython 3.12 headers, used there only if its Python has none
#
# Run here with Go, Python and a network: bash tools/gpu/prepare.sh
# PYTHON (default python3) downloads the wheels; PY312 (default python3.12) gives the
# headers, which are left out when no such interpreter exists.
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON=${PYTHON:-python3}
PY312=${PY312:-python3.12}
DEST=.gpu
# The versions the build is tested with; pybindgen runs inside gopy's build.
WHEELS=(setuptools==84.2.1 pybindgen==0.22.1)
GO_TOOLS=(asm cgo compile link vet)

if [[ $(go env GOOS)/$(go env GOARCH) != linux/amd64 ]]; then
	echo "prepare.sh: needs a linux/amd64 Go toolchain, found $(go env GOOS)/$(go env GOARCH)" >&2
	exit 1
fi

work=$(mktemp -d)
trap 'chmod -R u+w "$work" && rm -rf "$work"' EXIT
rm -rf "$DEST"
mkdir -p "$DEST/wheels"

goroot=$(go env GOROOT)
echo "== Go toolchain from $goroot"
# src/cmd holds the sources of the tools, which come prebuilt; *.syso are the race
# detector's and BoringCrypto's objects, which only -race and GOEXPERIMENT use.
tar -C "$goroot" -cf - --exclude=src/cmd --exclude='*_test.go' --exclude=testdata --exclude='*.syso' \
	VERSION go.env LICENSE bin/go pkg/include "${GO_TOOLS[@]/#/pkg/tool/linux_amd64/}" src |
	xz -T0 -6 >"$DEST/go.tar.xz"

echo "== Go modules"
# Read-only module mode: listing must not edit go.mod or go.sum.
export GOMODCACHE=$work/mod GOFLAGS="-mod=readonly -modcacherw -buildvcs=false" GOTOOLCHAIN=local
# The directories of every non-standard package that a build or test here imports:
# setup.py builds gopy and goimports from tools/, gopy's generated package imports
# gopyh (pinned by the tools-tagged import in gofss/binding), go test adds testify.
dirs=$(
	cd tools
	go list -deps -f '{{with .Module}}{{$.Dir}}{{end}}' github.com/go-python/gopy golang.org/x/tools/cmd/goimports
)
dirs+=$'\n'$(go list -deps -test -tags tools -f '{{with .Module}}{{$.Dir}}{{end}}' ./...)
mkdir -p "$work/keep"
# Offline, Go reads a module's go.mod, .info and .ziphash from cache/download and the
# extracted sources; the zips themselves are only for extracting.
(cd "$GOMODCACHE" && find cache/download -path cache/download/sumdb -prune -o \
	\( -name '*.mod' -o -name '*.info' -o -name '*.ziphash' \) -print | tar -cf - -T -) | tar -C "$work/keep" -xf -
n=0
while read -r dir; do
	[[ $dir == "$GOMODCACHE"/* ]] || continue
	rel=${dir#"$GOMODCACHE"/}
	mkdir -p "$work/keep/$rel"
	find "$dir" -maxdepth 1 -type f ! -name '*_test.go' -exec cp -p {} "$work/keep/$rel/" \;
	n=$((n + 1))
done < <(sort -u <<<"$dirs")
tar -C "$work/keep" -cf - . | xz -T0 -6 >"$DEST/gomod.tar.xz"
echo "$n package directories from $(find "$work/keep/cache/download" -name '*.ziphash' | wc -l) modules"

echo "== Python wheels"
"$PYTHON" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
	--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
	-d "$DEST/wheels" "${WHEELS[@]}"

echo "== CPython 3.12 headers"
if include=$("$PY312" -c 'import sysconfig; print(sysconfig.get_config_var("INCLUDEPY"))' 2>/dev/null) &&
	[[ -f $include/Python.h ]]; then
	tar -C "$(dirname "$include")" -cf - "$(basename "$include")" | xz -T0 -6 >"$DEST/python3.12-include.tar.xz"
else
	echo "no $PY312 with headers here: run.sh will rely on the GPU machine's own"
fi

{
	go version
	printf '%s\n' "${WHEELS[@]}"
	sort -u <<<"$dirs" | sed -n "s|^$GOMODCACHE/||p"
} >"$DEST/MANIFEST"
du -ab "$DEST" | sort -k2 | awk '{ printf "%10d  %s\n", $1, $2 }'
