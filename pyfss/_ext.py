"""Loads the compiled Go core, the extension package that the build generates."""

try:
    from ._gofss import _gofss as raw
    from ._gofss import binding as lib
except ImportError as e:
    raise ImportError(
        f"pyfss: the compiled Go core (pyfss._gofss) could not be loaded: {e}. "
        "It is built when pyfss is installed (`pip install .`, which needs the Go "
        "toolchain) for one Python version; a source checkout that was not built "
        "cannot be imported."
    ) from e

__all__ = ["call", "go_error", "lib", "raw"]


def call(fn, *args):
    """Calls a bound Go function (from lib, or its C entry point from raw), raising
    go_error(e) for its errors."""
    try:
        return fn(*args)
    except RuntimeError as e:
        raise go_error(e) from None


def go_error(e: RuntimeError) -> Exception:
    """The exception for a Go error: ValueError for those the Go side marks as caused
    by the caller's input (a "ValueError: " prefix), the RuntimeError itself for
    others."""
    msg = str(e)
    if msg.startswith("ValueError: "):
        return ValueError(msg[len("ValueError: ") :])
    return e
