"""Run the AVX-512 paths' Go tests on an emulated AVX-512 CPU.

The AVX-512 code (the ``vaes-avx512`` AES backend, the ``avx512`` and
``avx512-shiftrot`` ChaCha backends, the simd routines and the ``avx512-vaes``/``avx512`` walks) is what AVX-512 CPUs run by
default, and CI machines have none. Bochs emulates an Ice Lake CPU (AVX-512 F, BW, VL,
VAES, VPCLMULQDQ): this boots a Linux kernel in it from an ISO whose initramfs holds
busybox, statically linked Go test binaries and the vectors, runs the tests there and
reads their output from the emulated serial port. It fails when a test fails, when the
guest does not finish, or when no test of an AVX-512 path ran (a guest without the
features would skip them and pass).

What it needs, installed with apt-get when missing (as root, or with sudo without a
password): Debian's ``bochs``, ``bochsbios``, ``vgabios``, ``bochs-term``,
``busybox-static``, ``isolinux``, ``syslinux-common`` and ``xorriso``, and Debian 13's
cloud kernel image (KERNEL_SUITE), fetched with the machine's own apt sources, moved
to that release, into the work folder.

Usage: ``python build_support/avx512emu.py [--work DIR] [--timeout S]``; nox runs it
as ``nox -s avx512``. Standard library only.
"""

from __future__ import annotations

import argparse
import fcntl
import gzip
import os
import pty
import re
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The AVX-512 paths' names, as the tests name their subtests: the AES backend, the
# ChaCha backends (the second: one-seed rotations by shifts, Zen 4's default) and
# simd routine set, the walk implementations, BLAKE3's routines.
AES, WALKS, BLAKE3 = "vaes-avx512", "avx512-vaes|avx512", "avx512"
CHACHAS = ("avx512", "avx512-shiftrot")
CHACHA = "|".join(CHACHAS)


def only(paths: str, level: int, tests: str = "") -> str:
    """A -test.run pattern: the tests matching tests (all with ""), and of their
    subtests at level (the top is 1) those named one of paths."""
    top = f"^({tests})$" if tests else ""
    return top + "/" * (level - 1) + f"^({paths})$"


PRGS = f"{AES}|{CHACHA}"

# What each guest runs (the two boot side by side, a core each): a test binary, its
# package, a -test.run pattern. Only the subtests of the AVX-512 paths: the AVX2 and
# AES-NI ones are tested on every CI machine's own CPU, and under emulation they would
# take most of the time. The internal packages name the path at the second level; the
# scheme package's tests at the level after their cases. A test that names no path
# (it tests AVX-512 code alone) runs whole: a path filter would skip all of it.
GUESTS = (
    (
        ("aes128", "gofss/internal/aes128", only(PRGS, 2)),
        ("chacha", "gofss/internal/chacha", only(PRGS, 2)),
        ("simd", "gofss/internal/simd", only(PRGS, 2)),
        # The routines running AES against themselves fed by the PRG: AVX-512 alone,
        # their subtests named by size and group.
        ("simd", "gofss/internal/simd", "^(TestEvalAllRoutinesRunAES|TestGenRoutinesRunAES)$"),
        (
            "gofss",
            "gofss",
            only(
                f"{PRGS}|{WALKS}",
                2,
                "TestPrgBackendInfoWalks|TestFastEvalRefusesBadCws|TestFastDcfEvalRefusesBadCws",
            ),
        ),
        ("gofss", "gofss", only(WALKS, 3, "TestFastGenStaged")),
        (
            "gofss",
            "gofss",
            only(
                WALKS,
                5,
                "TestFusedGenMatchesPortable|TestFusedEvalMatchesPortable|TestVdpfImplsMatchPortable",
            ),
        ),
        ("gofss", "gofss", "^TestOneKeyLongBatches$"),
        # VDPF's BLAKE3 routines for AVX512VL, against the libraries and the portable
        # compression (subtests hash/backend, or backend alone).
        (
            "hashes",
            "gofss/internal/hashes",
            only(
                BLAKE3,
                3,
                "TestVectors|TestXorHashMany|TestHMany|TestChain|TestChainLanes|TestStepChains",
            ),
        ),
        (
            "hashes",
            "gofss/internal/hashes",
            only(
                BLAKE3,
                2,
                "TestBlake3Many|TestBlake3FastAgainstPortable|TestLaneRoutinesStayInBounds",
            ),
        ),
    ),
    (
        (
            "gofss",
            "gofss",
            only(
                PRGS,
                3,
                "TestVectors|TestFastMatchesPortable|TestFastEvalAllLarge|TestFastEvalOutputsInPlace"
                "|TestOneKeyMatchesPortable|TestChachaImplVectors",
            ),
        ),
        # The chacha walks at four widths of their seven: the three narrowest (whole
        # domains evaluated) take 1.4 of the test's 2.4 s on AVX2, and the AVX-512
        # backend's whole-domain evaluations are tested by the run above.
        ("gofss", "gofss", "^TestChachaImplMatchesPortable$/-n(20|63|64|128)$/^avx512$"),
    ),
)

# At least one subtest named after each of these must pass.
AVX512_PATHS = (AES, *CHACHAS, "avx512-vaes")

PACKAGES = (
    "bochs",
    "bochsbios",
    "vgabios",
    "bochs-term",
    "busybox-static",
    "isolinux",
    "syslinux-common",
    "xorriso",
)
BUSYBOX = Path("/bin/busybox")
ISOLINUX = (
    Path("/usr/lib/ISOLINUX/isolinux.bin"),
    Path("/usr/lib/syslinux/modules/bios/ldlinux.c32"),
)

# Debian 12's kernels (6.1) did not boot under Bochs 2.7 (the generic one stopped after
# the mount cache setup, the timer still ticking; the cloud one reached no init in three
# minutes); Debian 13's 6.12 cloud kernel boots in about 45 s.
KERNEL_SUITE = "trixie"
KERNEL_PACKAGE = "linux-image-cloud-amd64"

# Bochs 2.7's Ice Lake reports XSAVE sizes for the compacted format that do not match
# its component offsets, and an empty PKRU component: Linux then turns XSAVE, and with
# it AVX, off. Without XSAVES/XSAVEC and PKU the kernel uses the standard format, which
# Bochs reports right. The rest keeps the boot short: one CPU, no ACPI, no HPET, a
# polling idle loop (the guest's clock runs on instructions).
KERNEL_ARGS = (
    "console=ttyS0,115200 quiet mitigations=off nosmp acpi=off hpet=disable idle=poll "
    "tsc=reliable no_timer_check lpj=100000 nowatchdog nmi_watchdog=0 lsm=capability "
    "nopku clearcpuid=pku,xsaves,xsavec"
)

BOCHSRC = """\
megs: 2048
cpu: model=corei7_icelake_u, count=1, ips=20000000, ignore_bad_msrs=1
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/bochs/VGABIOS-lgpl-latest
ata0-master: type=cdrom, path={iso}, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev={serial}
log: {log}
panic: action=fatal
clock: sync=none, time0=local
display_library: term
speaker: enabled=0
"""

# The guest's /init. Go 1.26's garbage collector scans spans with AVX-512 where the
# CPU has VL, BW, DQ, GFNI, BITALG and VBMI, and under Bochs that scan corrupts the heap
# (a pure Go allocation loop failed there in each run, and passed with it off), so the
# binaries are built with GOEXPERIMENT=nogreenteagc (build_tests): the tests' own
# AVX-512 detection (golang.org/x/sys/cpu) is left alone, unlike with GODEBUG=cpu.*=off.
INIT = """\
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
echo "=== CPU $(grep -o -w -E 'avx512f|avx512bw|avx512vl|vaes|vpclmulqdq' /proc/cpuinfo | sort -u | tr '\\n' ' ')"
export GOMAXPROCS=1 HOME=/tmp
{runs}
echo "=== GUEST DONE"
sleep 3  # the serial port's queue out, which poweroff -f would drop
poweroff -f
"""
RUN = """\
cd '{dir}' && echo '=== BINARY {run}: {name} -test.run {pattern}'
/tests/{name}.test -test.v -test.count=1 -test.failfast -test.run '{pattern}' 2>&1
echo "=== END {run} rc=$?"
"""


def sudo() -> list[str]:
    return [] if os.geteuid() == 0 else ["sudo", "-n"]


def install_packages() -> None:
    """Debian's packages of PACKAGES that are missing, with apt-get."""
    missing = [
        p
        for p in PACKAGES
        if subprocess.run(["dpkg", "-s", p], capture_output=True, check=False).returncode != 0
    ]
    if not missing:
        return
    if shutil.which("apt-get") is None:
        sys.exit(f"avx512emu: missing {' '.join(missing)} and no apt-get to install them")
    subprocess.run([*sudo(), "apt-get", "update", "-qq"], check=False)
    install = [*sudo(), "apt-get", "install", "-y", "-qq", *missing]
    if subprocess.run(install, check=False).returncode != 0:
        sys.exit(f"avx512emu: could not install {' '.join(missing)}: run `{' '.join(install)}`")


def apt_sources(suite: str) -> str:
    """The machine's Debian apt sources (one-line or deb822 files), moved to another
    suite: the same mirrors, components and keyrings, as a sources.list for downloads
    that leave the machine's own package lists alone."""
    out = []
    etc = Path("/etc/apt")
    for path in [etc / "sources.list", *sorted((etc / "sources.list.d").glob("*.list"))]:
        for line in path.read_text().splitlines() if path.exists() else []:
            m = re.match(r"^deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.+)$", line.strip())
            if m and not m.group(3).endswith("-security"):
                out.append(f"deb {m.group(1) or ''}{m.group(2)} {suite} {m.group(4)}")
    for path in sorted((etc / "sources.list.d").glob("*.sources")):
        for stanza in path.read_text().split("\n\n"):
            fields = {
                k.strip(): v.strip()
                for k, v in (
                    line.split(":", 1)
                    for line in stanza.splitlines()
                    if re.match(r"^[A-Za-z-]+:", line)
                )
            }
            suites = fields.get("Suites", "").split()
            if "deb" not in fields.get("Types", "").split() or not suites:
                continue
            if any(s.endswith("-security") for s in suites):
                continue
            keys = f"[signed-by={fields['Signed-By']}] " if "Signed-By" in fields else ""
            for uri in fields.get("URIs", "").split():
                out.append(f"deb {keys}{uri} {suite} {fields.get('Components', 'main')}")
    if not out:
        sys.exit("avx512emu: no Debian apt sources found to fetch the kernel from")
    return "\n".join(dict.fromkeys(out)) + "\n"


def fetch_kernel(work: Path) -> Path:
    """The vmlinuz of KERNEL_PACKAGE from KERNEL_SUITE, downloaded and unpacked into
    work (kept there: a second run reuses it)."""
    done = list(work.glob("kernel/boot/vmlinuz-*"))
    if done:
        return max(done)
    apt = work / "apt"
    for d in ("lists/partial", "cache/archives/partial", "parts"):
        (apt / d).mkdir(parents=True, exist_ok=True)
    (apt / "sources.list").write_text(apt_sources(KERNEL_SUITE))
    opts = [
        f"-oDir::Etc::SourceList={apt}/sources.list",
        f"-oDir::Etc::SourceParts={apt}/parts",
        f"-oDir::State::Lists={apt}/lists",
        f"-oDir::Cache={apt}/cache",
        "-oAPT::Sandbox::User=root",
    ]
    subprocess.run(["apt-get", *opts, "update", "-qq"], check=True)
    deps = subprocess.run(
        ["apt-cache", *opts, "depends", KERNEL_PACKAGE], capture_output=True, text=True, check=True
    ).stdout
    image = re.search(r"Depends: (linux-image-\S+)", deps)
    if image is None:
        sys.exit(f"avx512emu: {KERNEL_PACKAGE} in {KERNEL_SUITE} names no kernel image")
    debs = work / "debs"
    debs.mkdir(exist_ok=True)
    subprocess.run(["apt-get", *opts, "download", image.group(1)], cwd=debs, check=True)
    deb = next(debs.glob(f"{image.group(1)}_*.deb"))
    subprocess.run(["dpkg-deb", "-x", deb, work / "kernel"], check=True)
    return max(work.glob("kernel/boot/vmlinuz-*"))


def build_tests(out: Path) -> None:
    """The test binaries, static and for the guest's collector (see INIT)."""
    env = dict(os.environ, CGO_ENABLED="0", GOOS="linux", GOARCH="amd64")
    env["GOEXPERIMENT"] = "nogreenteagc"
    binaries = {name: pkg for guest in GUESTS for name, pkg, _ in guest}
    for name, pkg in binaries.items():
        subprocess.run(
            ["go", "test", "-c", "-o", out / f"{name}.test", f"./{pkg}"],
            cwd=ROOT,
            env=env,
            check=True,
        )


def cpio_newc(files: dict[str, tuple[int, bytes]]) -> bytes:
    """An initramfs archive (cpio "newc") of files: path -> (mode, content); the
    directories above them are added."""
    entries: dict[str, tuple[int, bytes]] = {}
    for path in sorted(files):
        parts = path.split("/")
        for i in range(1, len(parts)):
            entries.setdefault("/".join(parts[:i]), (0o040755, b""))
        entries[path] = files[path]
    out = bytearray()

    def add(ino: int, name: str, mode: int, data: bytes) -> None:
        fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0)
        out.extend(b"070701" + b"".join(b"%08X" % f for f in fields) + name.encode() + b"\0")
        out.extend(b"\0" * (-len(out) % 4))
        out.extend(data)
        out.extend(b"\0" * (-len(out) % 4))

    for ino, (name, (mode, data)) in enumerate(sorted(entries.items()), start=1):
        add(ino, name, mode, data)
    add(0, "TRAILER!!!", 0, b"")
    return bytes(out)


def initramfs(tests: Path, runs: tuple[tuple[str, str, str], ...]) -> bytes:
    """A guest's files: busybox, an /init doing runs, their test binaries, and the
    repository's test data at the repository's own path (the vector tests find it
    from their source file's path, as recorded in the binaries)."""
    files: dict[str, tuple[int, bytes]] = {
        "bin/busybox": (0o100755, BUSYBOX.read_bytes()),
        "tmp/.keep": (0o100644, b""),
    }
    for d in ("proc", "sys", "dev"):
        files[f"{d}/.keep"] = (0o100644, b"")
    repo = str(ROOT).lstrip("/")
    for path in sorted((ROOT / "gofss" / "testdata").rglob("*")):
        if path.is_file():
            files[f"{repo}/{path.relative_to(ROOT)}"] = (0o100644, path.read_bytes())
    script = []
    for run, (name, pkg, pattern) in enumerate(runs):
        files[f"{repo}/{pkg}/.keep"] = (0o100644, b"")
        files[f"tests/{name}.test"] = (0o100755, (tests / f"{name}.test").read_bytes())
        script.append(RUN.format(dir=f"/{repo}/{pkg}", run=run, name=name, pattern=pattern))
    files["init"] = (0o100755, INIT.format(runs="".join(script)).encode())
    return gzip.compress(cpio_newc(files), compresslevel=1)


def make_iso(guest: Path, vmlinuz: Path, initrd: bytes) -> Path:
    """A bootable ISO in the guest's folder: isolinux, the kernel, initrd."""
    tree = guest / "iso"
    shutil.rmtree(tree, ignore_errors=True)
    (tree / "isolinux").mkdir(parents=True)
    for f in ISOLINUX:
        shutil.copy(f, tree / "isolinux")
    shutil.copy(vmlinuz, tree / "vmlinuz")
    (tree / "initrd.gz").write_bytes(initrd)
    (tree / "isolinux" / "isolinux.cfg").write_text(
        "DEFAULT linux\nPROMPT 0\nTIMEOUT 0\nLABEL linux\n  KERNEL /vmlinuz\n"
        f"  APPEND initrd=/initrd.gz {KERNEL_ARGS}\n"
    )
    iso = guest / "boot.iso"
    subprocess.run(
        [
            "xorriso", "-as", "mkisofs", "-quiet", "-o", iso,
            "-b", "isolinux/isolinux.bin", "-c", "isolinux/boot.cat",
            "-no-emul-boot", "-boot-load-size", "4", "-boot-info-table", tree,
        ],
        check=True,
    )  # fmt: skip
    return iso


def boot(guest: Path, iso: Path, timeout: float) -> str:
    """Boots iso in Bochs and returns what the guest wrote to its serial port, once it
    says it is done or timeout seconds have passed. Debian's Bochs has its debugger
    built in: the rc file tells it to run at once. Its text display draws on a
    terminal: a pseudo-terminal whose output a thread reads and drops (unread, it
    fills and the emulator stops in a write, as it did under script(1))."""
    serial, rc, debugger = guest / "serial.out", guest / "bochsrc", guest / "debugger.rc"
    serial.unlink(missing_ok=True)
    rc.write_text(BOCHSRC.format(iso=iso, serial=serial, log=guest / "bochs.log"))
    debugger.write_text("continue\nquit\n")
    screen, tty = pty.openpty()
    fcntl.ioctl(tty, termios.TIOCSWINSZ, struct.pack("HHHH", 25, 80, 0, 0))
    bochs = subprocess.Popen(
        ["bochs-bin", "-q", "-f", rc, "-rc", debugger],
        stdin=tty,
        stdout=tty,
        stderr=tty,
        env=dict(os.environ, TERM="vt100"),
        start_new_session=True,
    )
    os.close(tty)
    threading.Thread(target=drain, args=(screen,), daemon=True).start()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and bochs.poll() is None:
            time.sleep(2)
            text = serial.read_text(errors="replace") if serial.exists() else ""
            if "=== GUEST DONE" in text or "reboot: " in text:  # done, or halted early
                break
    finally:
        if bochs.poll() is None:  # its text display catches SIGTERM and goes on
            os.killpg(bochs.pid, signal.SIGKILL)
            bochs.wait()
    return serial.read_text(errors="replace") if serial.exists() else ""


def drain(fd: int) -> None:
    """Reads fd until it closes, dropping what it reads."""
    try:
        while os.read(fd, 1 << 16):
            pass
    except OSError:  # the terminal's other side closed
        pass
    finally:
        os.close(fd)


def check(output: str, runs: tuple[tuple[str, str, str], ...]) -> list[str]:
    """What is wrong with a guest's output: a CPU without the features, runs that
    failed or did not finish."""
    problems = []
    cpu = re.search(r"^=== CPU (.*)$", output, re.MULTILINE)
    if cpu is None or len(cpu.group(1).split()) < 5:
        problems.append(f"the guest's CPU lacks AVX-512 features: {cpu and cpu.group(1)!r}")
    for run, (name, _, pattern) in enumerate(runs):
        end = re.search(rf"^=== END {run} rc=(\d+)$", output, re.MULTILINE)
        if end is None or end.group(1) != "0":
            status = "did not finish" if end is None else f"exit status {end.group(1)}"
            problems.append(f"{name} -test.run {pattern!r}: {status}")
    if "=== GUEST DONE" not in output:
        problems.append("the guest did not finish")
    return problems


def untested_paths(outputs: list[str]) -> list[str]:
    """The AVX-512 paths of which no subtest passed in any guest."""
    passed = [t for out in outputs for t in re.findall(r"--- PASS: (\S+)", out)]
    return [
        f"no test of {path} passed"
        for path in AVX512_PATHS
        if not any(re.search(rf"/{path}(/|$)", t) for t in passed)
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=ROOT / "build" / "avx512emu")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds for each guest")
    args = ap.parse_args()
    work = args.work.resolve()
    (work / "tests").mkdir(parents=True, exist_ok=True)
    install_packages()
    vmlinuz = fetch_kernel(work)
    build_tests(work / "tests")
    isos = []
    for g, runs in enumerate(GUESTS):
        guest = work / f"guest{g}"
        guest.mkdir(exist_ok=True)
        isos.append((guest, make_iso(guest, vmlinuz, initramfs(work / "tests", runs))))
    start = time.monotonic()
    with ThreadPoolExecutor(len(isos)) as pool:
        outputs = list(pool.map(lambda gi: boot(*gi, args.timeout), isos))
    print(f"avx512emu: the guests ran {time.monotonic() - start:.0f} s")
    problems = []
    for (guest, _), runs, output in zip(isos, GUESTS, outputs):
        (guest / "guest.log").write_text(output)
        print(f"avx512emu: {guest.name} (whole output in {guest / 'guest.log'}):")
        for line in output.splitlines():
            if line.startswith(("===", "--- FAIL", "FAIL", "ok", "PASS", "panic", "fatal")):
                print(line)
        problems += [f"{guest.name}: {p}" for p in check(output, runs)]
    problems += untested_paths(outputs)
    for p in problems:
        print(f"avx512emu: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
