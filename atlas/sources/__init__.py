"""Pinned sources: manifests, locks, the git cache and read-only checkouts. The only package that runs git."""

from atlas.sources.checkouts import blob_id
from atlas.sources.manifest import Manifest, having, load_all, load_manifest
from atlas.sources.sync import Checkout, analysed_files, is_ready, locate, recheck, repin, sync_pin, sync_ref

__all__ = [
    "Checkout",
    "Manifest",
    "analysed_files",
    "blob_id",
    "having",
    "is_ready",
    "load_all",
    "load_manifest",
    "locate",
    "recheck",
    "repin",
    "sync_pin",
    "sync_ref",
]
