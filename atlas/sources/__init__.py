"""Pinned sources: manifests, locks, the git cache and read-only checkouts. The only package that runs git."""

from atlas.sources.manifest import Manifest, load_all, load_manifest
from atlas.sources.sync import Checkout, is_ready, repin, sync_pin

__all__ = ["Checkout", "Manifest", "is_ready", "load_all", "load_manifest", "repin", "sync_pin"]
