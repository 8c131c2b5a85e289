"""Which device ragged's functions run on: the ``device=`` argument of every call, else
the innermost :func:`ragged.device` block, else ``"auto"`` (CUDA device 0 when usable,
otherwise the CPU)."""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterator

__all__ = ["device", "current_device", "resolve"]

_CURRENT: contextvars.ContextVar[str] = contextvars.ContextVar("ragged_device", default="auto")
_NAME = re.compile(r"^(auto|cpu|cuda|gpu|cuda:\d+)$")


def resolve(device: str | None) -> str:
    """The device name a call runs on: ``device`` when given, else the current one."""
    if device is None:
        return _CURRENT.get()  # checked and normalized when the block set it
    name = device.strip().lower() if isinstance(device, str) else None
    if name is None or not _NAME.match(name):
        from .errors import InvalidArgumentError

        raise InvalidArgumentError(
            f"invalid argument device: {device!r} is not one of auto, cpu, cuda, cuda:N"
        )
    return name


def current_device() -> str:
    """The device name calls without ``device=`` use here (``"auto"`` by default)."""
    return _CURRENT.get()


@contextlib.contextmanager
def device(name: str) -> Iterator[str]:
    """Run the calls inside the ``with`` block on ``name`` (``"auto"``, ``"cpu"``,
    ``"cuda"``, ``"cuda:N"``) unless they pass ``device=`` themselves::

        with ragged.device("cpu"):
            ragged.strings.upper(names)   # on the CPU
    """
    token = _CURRENT.set(resolve(name))
    try:
        yield name
    finally:
        _CURRENT.reset(token)
