"""Pinned sources: manifests, locks, the git cache and read-only checkouts. The only package that runs git."""

from atlas.sources.manifest import Manifest, having, load_all, load_manifest
from atlas.sources.sync import Checkout, analysed_files, is_ready, locate, repin, sync_pin, sync_ref

__all__ = [
    "Checkout",
    "Manifest",
    "analysed_files",
    "having",
    "is_ready",
    "load_all",
    "load_manifest",
    "locate",
    "repin",
    "sync_pin",
    "sync_ref",
]
