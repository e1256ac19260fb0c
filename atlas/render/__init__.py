"""The static site: jinja2 templates (site/templates) render Markdown and data files for mkdocs-material, built
into an ignored folder. The only package that writes the site."""

from atlas.render.build import BuildReport, build_site, build_sites, out_dir
from atlas.render.check import check_site
from atlas.render.inputs import Anchored, EngineData, SiteData, collect

__all__ = [
    "Anchored",
    "BuildReport",
    "EngineData",
    "SiteData",
    "build_site",
    "build_sites",
    "check_site",
    "collect",
    "out_dir",
]
