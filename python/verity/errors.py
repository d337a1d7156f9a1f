"""Exceptions raised by Verity. Every error carries ``.code`` (the Rust
``verity_core::Error::code()``, e.g. ``"invalid_input"``) and ``.transient``
(whether retrying may succeed). Which class a code raises is decided by the
error table shared by every host (``verity::api::error``; see
``verity._verity._error_table()``)."""

from __future__ import annotations

__all__ = [
    "VerityError",
    "InvalidInput",
    "NotFound",
    "Unavailable",
    "EmbedderMismatch",
    "ConfigError",
]


class VerityError(Exception):
    """Base class of every Verity error."""

    code: str
    transient: bool

    def __init__(self, message: str, code: str = "internal", transient: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.transient = transient


class InvalidInput(VerityError, ValueError):
    """Bad argument or malformed document (code ``invalid_input``); from
    ``call_tool``, also an unknown tool (``unknown_tool``) or arguments that do
    not match the tool's input schema (``invalid_arguments``)."""


class NotFound(VerityError, LookupError):
    """Index, alias or model not found (code ``not_found``)."""


class Unavailable(VerityError):
    """A provider is down, rate-limited or timed out (codes ``unavailable``, ``timeout``)."""


class EmbedderMismatch(VerityError):
    """The index was built with another embedder (codes ``embedder_mismatch``, ``reindex_required``)."""


class ConfigError(VerityError):
    """Invalid or incomplete configuration (codes ``config_error``, ``model_not_found``)."""
