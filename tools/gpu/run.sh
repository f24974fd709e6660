#!/usr/bin/env bash
# shellcheck disable=SC2016 # step commands are strings that bash -c expands as they run
#
# The GPU checks, on a linux/amd64 machine with a GPU, nvcc and Python with torch but
# without Go or a network, from the repository root with the .gpu/ folder that
# tools/gpu/prepare.sh packs:
#
#   bash tools/gpu/run.sh
#
# Unpacks Go and the module cache to $PYFSS_GPU_TMP (default /tmp/pyfss-gpu), builds the
# kernels and checks them against the launcher's argument layouts, builds pyfss offline
# (installed there, not into the Python environment), then proves it before it measures:
# the demo, the Go GPU tests, the CUDA tests (4 workers where pytest-xdist is installed),
# then the Go GPU benchmarks and benchmarks/gpu_bench.py. The tests run with
# PYFSS_CUDA_SYNC=1, so that a kernel's fault fails the call that launched it. A failing
# step does not stop the next; each has its own time limit, the proving steps' limits
# add up to the budget, and all end within PYFSS_GPU_BUDGET seconds (default 480): the
# benchmarks get what the others leave. Logs and summary.md go to $OUT (default
# ./gpu-out); the summary is printed last.
#
# PYTHON: the interpreter with torch (default python3). PYFSS_GPU_STEPS: the steps to
# run (default all: nvcc abi install demo gotest pytest gobench bench); a later run on
# the same machine may repeat some, reusing the unpacked tools and the installed package.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit

export PYTHON=${PYTHON:-python3}
export OUT=${OUT:-$PWD/gpu-out}
TMP=${PYFSS_GPU_TMP:-/tmp/pyfss-gpu}
BUDGET=${PYFSS_GPU_BUDGET:-480}
STEPS=" ${PYFSS_GPU_STEPS:-nvcc abi install demo gotest pytest gobench bench} "
mkdir -p "$OUT"
summary=$OUT/summary.md
start=$SECONDS

# step NAME CAP LOG COMMAND: runs COMMAND (a bash string; $LIMIT is its time limit) with
# output appended to $OUT/LOG, for at most CAP seconds or what is left of the budget.
step() {
	local name=$1 cap=$2 log=$OUT/$3 cmd=$4 t0=$SECONDS rc result
	[[ $STEPS == *" $name "* ]] || return 0
	LIMIT=$((BUDGET - (SECONDS - start)))
	((LIMIT > cap)) && LIMIT=$cap
	if ((LIMIT < 30)); then
		echo "| $name | not run: out of time | 0 | |" >>"$summary"
		return 0
	fi
	export LIMIT
	echo "== $name (limit ${LIMIT}s): $cmd" | tee -a "$log"
	timeout -k 10 "$LIMIT" bash -c "$cmd" >>"$log" 2>&1
	rc=$?
	case $rc in
	0) result=ok ;;
	124 | 137) result="timed out after ${LIMIT}s" ;;
	*) result="failed (exit $rc)" ;;
	esac
	echo "== $name: $result in $((SECONDS - t0))s" | tee -a "$log"
	echo "| $name | $result | $((SECONDS - t0)) | ${log##*/} |" >>"$summary"
}

# Offline Go: the packed toolchain and module cache, a build cache of our own.
export GOROOT=$TMP/go GOMODCACHE=$TMP/gomod GOCACHE=$TMP/gocache GOPATH=$TMP/gopath
export GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GOENV=off GOFLAGS="-mod=mod -modcacherw -buildvcs=false"
export PYTHONPATH=$TMP/site PATH=$GOROOT/bin:$PATH
# nvcc is often installed outside PATH.
command -v nvcc >/dev/null || { [[ -x /usr/local/cuda/bin/nvcc ]] && PATH=$PATH:/usr/local/cuda/bin; }

# By Python, which needs no xz program.
untar() {
	"$PYTHON" -c 'import sys, tarfile
kw = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}
tarfile.open(sys.argv[1]).extractall(sys.argv[2], **kw)' "$@"
}

setup() {
	local stamp
	stamp=$(cksum .gpu/*.tar.xz .gpu/wheels/*.whl) || return 1
	if [[ -f $TMP/stamp && $(<"$TMP/stamp") == "$stamp" ]]; then
		echo "reusing $TMP"
		return 0
	fi
	chmod -R u+w "$TMP" 2>/dev/null
	rm -rf "$TMP"
	mkdir -p "$GOROOT" "$GOMODCACHE" "$PYTHONPATH" || return 1
	untar .gpu/go.tar.xz "$GOROOT" && untar .gpu/gomod.tar.xz "$GOMODCACHE" || return 1
	"$PYTHON" -m pip install -q --no-index --no-deps --no-compile --target "$PYTHONPATH" .gpu/wheels/*.whl || return 1
	local include
	include=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("INCLUDEPY"))')
	if [[ ! -f $include/Python.h && -f .gpu/python3.12-include.tar.xz ]]; then
		echo "no $include/Python.h: using the packed CPython 3.12 headers"
		untar .gpu/python3.12-include.tar.xz "$TMP/include" || return 1
	fi
	echo "$stamp" >"$TMP/stamp"
}

{
	echo "# GPU checks, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo '```'
	nvidia-smi -L 2>&1 | head -4
	"$PYTHON" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1
	echo "nvcc: $(command -v nvcc || echo none) $(nvcc --version 2>/dev/null | tail -2 | head -1)"
	echo "gcc: $(gcc --version 2>/dev/null | head -1 || echo none)"
} >"$summary"
echo "== setup" | tee -a "$OUT/build.log"
t0=$SECONDS
if setup >>"$OUT/build.log" 2>&1; then setup_result=ok; else setup_result=failed; fi
echo "== setup: $setup_result in $((SECONDS - t0))s" | tee -a "$OUT/build.log"
# Headers that Python's own config lacks: gopy's first build (plain cgo) finds them
# through CGO_CFLAGS, which replaces Go's default -O2 -g, and its link of the
# extension through GOPY_INCLUDE.
if [[ -d $TMP/include/python3.12 ]]; then
	export GOPY_INCLUDE=$TMP/include/python3.12
	export CGO_CFLAGS="${CGO_CFLAGS:--O2 -g} -I$GOPY_INCLUDE"
fi
{
	echo "go: $(go version 2>&1)"
	echo '```'
	echo
	echo "| step | result | seconds | log |"
	echo "|---|---|---|---|"
	echo "| setup | $setup_result | $((SECONDS - t0)) | build.log |"
} >>"$summary"

# Kernels first, with the machine's nvcc; the install then embeds them (setup.py's
# prebuilt fatbin) with nvcc off PATH, so they are not compiled twice, and a failing
# kernel build still leaves a CPU-only package for the other steps.
step nvcc 110 build.log '"$PYTHON" build_support/nvcc.py'
# The fatbin just built, against the launcher's parameter layouts and the expected
# architectures; the tests skip without one, so a missing fatbin fails here instead.
step abi 50 gotest.log 'test -s gofss/cuda/kernels/pyfss.fatbin && go test ./gofss/cuda -run "TestKernelABI|TestEmbeddedArchs" -v -count=1'
nvcc_dir=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/bin/nvcc)")
install_path=$PATH
[[ $nvcc_dir != /usr/bin && $nvcc_dir != /bin ]] && install_path=$(tr : '\n' <<<"$PATH" | grep -vxF "$nvcc_dir" | paste -sd:)
export INSTALL_PATH=$install_path
step install 140 build.log 'PATH=$INSTALL_PATH "$PYTHON" -m pip install -v --no-build-isolation --no-index --no-deps --upgrade --target "$PYTHONPATH" .'

# -P keeps the source tree, which has no extension, off sys.path.
step demo 25 demo.log '"$PYTHON" -P - <<EOF && "$PYTHON" -P -m pyfss
import json, os, pyfss, torch
print(pyfss.__file__)
assert pyfss.__file__.startswith(os.environ["PYTHONPATH"]), "that is not the pyfss built here"
cuda = pyfss.backend_info()["cuda"]
print(json.dumps(cuda, indent=1))
assert cuda["usable"] or not torch.cuda.is_available(), "torch has a GPU, pyfss cannot use it"
EOF'
# TestGPUVectors runs every vector file through the launcher (DMPF/VDMPF included).
export PYFSS_CUDA_SYNC=1
step gotest 45 gotest.log 'go test ./gofss/cuda -run "GPU|FakeDriver" -v -count=1 -timeout $((LIMIT - 10))s'
"$PYTHON" -c 'import xdist' 2>/dev/null && export WORKERS="-n 4"
step pytest 110 pytest.log 'PYTHONSAFEPATH=1 "$PYTHON" -m pytest ${WORKERS:-} tests/test_cuda.py tests/test_errors.py tests/test_mpf_cuda_checks.py tests/test_gates.py::test_on_cuda -q -rfEs --durations=5'
# Measured without the synchronization after each launch.
unset PYFSS_CUDA_SYNC
# BenchmarkGPU{Eval,EvalAll,Grotto,Vdpf,Mpf}.
step gobench 60 gobench.log 'go test ./gofss/cuda -run "^$" -bench GPU -benchtime 20x -timeout $((LIMIT - 10))s'
step bench 120 bench.log '"$PYTHON" -P benchmarks/gpu_bench.py --out "$OUT/bench.md"'

{
	echo
	echo "Total $((SECONDS - start))s."
	echo
	echo "## Go"
	echo '```'
	grep -E '^(--- |ok|FAIL|PASS)|ns/op' "$OUT/gotest.log" "$OUT/gobench.log" 2>/dev/null
	echo '```'
	echo
	echo "## pytest"
	echo '```'
	grep -E '^(FAILED|ERROR|SKIPPED)|[0-9]+ (passed|failed|errors?)' "$OUT/pytest.log" 2>/dev/null | tail -20
	echo '```'
	echo
	[[ -f $OUT/bench.md ]] && cat "$OUT/bench.md"
} >>"$summary"
cat "$summary"
