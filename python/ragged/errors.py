"""The exceptions ragged raises. Every one derives from :class:`RaggedError` and from the
built-in exception a Python user would catch for it (``ValueError``, ``TypeError``,
``IndexError``, ``OverflowError``, ``MemoryError``, ``OSError``, ``RuntimeError``); the
message is the Rust library's, naming the row, list or byte at fault."""

from __future__ import annotations

__all__ = [
    "RaggedError",
    "InvalidArgumentError",
    "TypeMismatchError",
    "LengthMismatchError",
    "InvalidOffsetsError",
    "IndexOutOfRangeError",
    "ColumnNotFoundError",
    "RaggedOverflowError",
    "RaggedMemoryError",
    "RaggedIOError",
    "FormatError",
    "InvalidUtf8Error",
    "DeviceUnavailableError",
    "DeviceError",
    "KernelCompileError",
]


class RaggedError(Exception):
    """Base class of every error raised by ragged."""


class InvalidArgumentError(RaggedError, ValueError):
    """An argument outside what the op accepts (an empty pattern, a bad option)."""


class TypeMismatchError(RaggedError, TypeError):
    """An array of a type the op does not take (numbers where strings are needed, …)."""


class LengthMismatchError(RaggedError, ValueError):
    """Arrays that must have one row per row of the input have another length."""


class InvalidOffsetsError(RaggedError, ValueError):
    """Offsets, starts or stops that do not describe lists of the child (the message
    names the first bad list)."""


class IndexOutOfRangeError(RaggedError, IndexError):
    """An index beyond a list, with ``strict=True``."""


class ColumnNotFoundError(RaggedError, KeyError):
    """A named column absent from a table."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message plain.
        return str(self.args[0]) if self.args else ""


class RaggedOverflowError(RaggedError, OverflowError):
    """An integer sum or product, or an output's offsets, beyond its type."""


class RaggedMemoryError(RaggedError, MemoryError):
    """The device's memory (or its ``memory_limit``) is exhausted."""


class RaggedIOError(RaggedError, OSError):
    """A file could not be read or written."""


class FormatError(RaggedError, ValueError):
    """A file's content is not what its format says (invalid UTF-8, a truncated file)."""


class InvalidUtf8Error(FormatError):
    """Bytes that are not UTF-8 where strings are built (the message names the row or
    record and the byte within it)."""


class DeviceUnavailableError(RaggedError, RuntimeError):
    """The device asked for cannot be used (no driver, no GPU, no kernels)."""


class DeviceError(RaggedError, RuntimeError):
    """The CUDA driver failed, or a kernel did not compile."""


class KernelCompileError(DeviceError):
    """NVRTC rejected a kernel: for :func:`ragged.transform_strings`, the user's CUDA
    C++ (the message holds NVRTC's log, naming its lines ``transform:LINE``)."""
