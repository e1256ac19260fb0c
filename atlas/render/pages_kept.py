"""mkdocs's two page steps (Markdown to HTML, then the theme's page with its search entries) and the theme's own
pages (404.html, sitemap.xml) kept in the build's memo: while `kept_pages` holds, mkdocs's own build runs as always,
except that a page whose inputs it has seen takes the kept result. A page's Markdown step is a function of its text,
the file list and the configuration; its built page of that and the navigation (every page's title and place); a
theme page of the configuration, the file list and the navigation. Used by atlas.render.build."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from atlas.render.memo import Memo, digest


@contextlib.contextmanager
def kept_pages(memo: Memo, config_key: str) -> Iterator[None]:
    """Route mkdocs.commands.build's `_populate_page`, `_build_page` and `_build_theme_template` through `memo` while
    the block runs."""
    from mkdocs import utils
    from mkdocs.commands import build as mkdocs_build

    populate, build_page = mkdocs_build._populate_page, mkdocs_build._build_page
    build_theme_page = mkdocs_build._build_theme_template
    digests: dict[str, str] = {}  # "files" and "nav", made once per build; page src_uri -> its Markdown key

    def files_key(files) -> str:
        if "files" not in digests:
            digests["files"] = digest(sorted(f.src_uri for f in files))
        return digests["files"]

    def nav_key(nav) -> str:
        if "nav" not in digests:
            digests["nav"] = digest(_outline(nav.items), [(p.url, p.title) for p in nav.pages])
        return digests["nav"]

    def kept_populate(page, config, files, dirty=False):
        files_key(files)
        page.read_source(config)
        key = memo.key("markdown", config_key, digests["files"], page.file.src_uri, page.markdown)
        digests[page.file.src_uri] = key

        def made():
            populate(page, config, files, dirty)
            anchors = page.present_anchor_ids
            return page.content, page.toc, page._title_from_render, None if anchors is None else sorted(anchors)

        page.content, page.toc, page._title_from_render, anchors = memo.get(key, made)  # sorted: the memo's bytes
        page.present_anchor_ids = None if anchors is None else set(anchors)  # do not depend on the hash seed

    def kept_build(page, config, doc_files, nav, env, dirty=False, excluded=False):
        search = _search_index(config)
        key = memo.key("page", digests[page.file.src_uri], nav_key(nav), excluded)

        def made():
            start = len(search.entries) if search is not None else 0
            build_page(page, config, doc_files, nav, env, dirty, excluded)
            path = Path(page.file.abs_dest_path)
            return (path.read_bytes() if path.is_file() else None, search.entries[start:] if search is not None else [])

        output, entries = memo.get(key, made)
        if key is not None and key in memo.known:  # kept: write what mkdocs wrote then
            if output is not None:
                utils.write_file(output, page.file.abs_dest_path)
            if search is not None:
                search.entries.extend(entries)

    def kept_theme_page(name, env, files, config, nav):
        key = memo.key("theme page", config_key, files_key(files), nav_key(nav), name)
        written = [name, f"{name}.gz"]  # the sitemap has a gzipped copy

        def made():
            build_theme_page(name, env, files, config, nav)
            paths = [(rel, Path(config.site_dir) / rel) for rel in written]
            return [(rel, path.read_bytes()) for rel, path in paths if path.is_file()]

        outputs = memo.get(key, made)
        if key is not None and key in memo.known:  # kept: write what mkdocs wrote then
            for rel, data in outputs:
                utils.write_file(data, str(Path(config.site_dir) / rel))

    mkdocs_build._populate_page, mkdocs_build._build_page = kept_populate, kept_build
    mkdocs_build._build_theme_template = kept_theme_page
    try:
        yield
    finally:
        mkdocs_build._populate_page, mkdocs_build._build_page = populate, build_page
        mkdocs_build._build_theme_template = build_theme_page


def _outline(items) -> list:
    """The navigation's shape: each item's kind, title and url, with its children."""
    return [
        (type(item).__name__, item.title, getattr(item, "url", None), _outline(item.children or [])) for item in items
    ]


def _search_index(config):
    """The search plugin's index (mkdocs-material's `search`), None without one."""
    for plugin in config.plugins.values():
        index = getattr(plugin, "search_index", None)
        if index is not None:
            return index
    return None
