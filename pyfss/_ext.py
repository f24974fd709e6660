"""Loads the compiled Go core, the extension package that the build generates."""

try:
    from ._gofss import binding as lib
except ImportError as e:
    raise ImportError(
        f"pyfss: the compiled Go core (pyfss._gofss) could not be loaded: {e}. "
        "It is built when pyfss is installed (`pip install .`, which needs the Go "
        "toolchain) for one Python version; a source checkout that was not built "
        "cannot be imported."
    ) from e

__all__ = ["call", "lib"]


def call(fn, *args):
    """Calls a bound Go function, raising ValueError for the errors the Go side marks
    as caused by the caller's input (a "ValueError: " prefix); others stay
    RuntimeError."""
    try:
        return fn(*args)
    except RuntimeError as e:
        msg = str(e)
        if msg.startswith("ValueError: "):
            raise ValueError(msg[len("ValueError: ") :]) from None
        raise
