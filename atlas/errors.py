"""The one error hierarchy of atlas. Each message says what went wrong and what to do; the CLI prints it on one
line and exits 2. Problems found *in the analysed code* are Findings (atlas.model), not errors."""

from __future__ import annotations


class AtlasError(Exception):
    """Base of every error atlas reports to the user."""

    exit_code = 2


class ConfigError(AtlasError):
    """A manifest, annotation or option is malformed; the message names file:line where there is one."""


class SourceError(AtlasError):
    """Git, the remote or the cache failed: unreachable remote, unknown ref, corrupt cache, no space."""


class SymbolNotFound(AtlasError):
    """A symbol name matched nothing, or matched several (the message lists the candidates)."""


class BuildMissing(AtlasError):
    """A query needs a build that does not exist yet."""


class BuildFailed(AtlasError):
    """A build step could not finish (a worker process died); what was built before is kept."""
