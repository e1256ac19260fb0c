"""`atlas build` and `atlas serve`: thin bodies over atlas.render."""

from __future__ import annotations

from atlas.cli import output, verb
from atlas.errors import BuildMissing, ConfigError


def register(sub) -> None:
    p = verb(
        sub,
        "build",
        "render the static site (Markdown + data via jinja2, HTML via mkdocs-material)",
        "Render the offline site into site_build/html: mechanism pages with contracts, claims and runtime evidence, "
        "a page per symbol, the source view, the call graph; with several pin sets, a switch between them. "
        "Incremental: only what changed is made again.",
        ("atlas build", "atlas build --pins default,latest"),
    )
    p.add_argument("frameworks", nargs="*", metavar="FRAMEWORK", help="default: every manifest in pinned_sources/")
    p.add_argument("--out", help="output folder (default: site_build/ in the project); HTML goes to OUT/html")
    p.add_argument("--no-check", action="store_true", help="skip the link and offline checks after the build")
    p.set_defaults(func=build)

    p = verb(
        sub,
        "serve",
        "preview the built site on http://127.0.0.1:PORT (run `atlas build` first)",
        "Serve the folder `atlas build` wrote on localhost.",
        ("atlas serve", "atlas serve --port 8080 --out /tmp/site"),
        ("human",),
    )
    p.add_argument("--out", help="the folder `atlas build --out` wrote (default: site_build/)")
    p.add_argument("--port", type=int, default=8000)
    p.set_defaults(func=serve)


def build(args, settings) -> int:
    from atlas.render import build_sites, check_site

    output.require(args)
    reports = build_sites(settings, args.frameworks or None, args.pin_sets, args.out)
    report = reports[0]  # the first pin set sits at the root of html/, the others under html/<set>/
    findings = [f for r in reports for f in r.findings]  # annotations that did not resolve, then the site's checks
    findings += [] if args.no_check else list(check_site(report.html))
    if args.format == "json":
        output.data(
            {
                "html": str(report.html),
                "pages": report.num_pages,
                "files": report.num_files,
                "symbol_pages": report.num_symbol_pages,
                "seconds": {k: round(v, 2) for k, v in report.seconds.items()},
                "findings": [{"kind": f.kind, "message": f.message, "where": f.where} for f in findings],
            }
        )
    else:
        split = ", ".join(f"{k} {v:.1f}s" for k, v in report.seconds.items())
        for r in reports:
            output.text(
                f"built {r.num_pages} pages ({r.num_symbol_pages} symbol pages) of {', '.join(r.refs)} into {r.html}"
            )
        output.text(f"time (first pin set, inputs and publish of all): {split}")
        for f in findings:
            output.text(f"{f.where}: {f.kind}: {f.message}")
        output.text(f"open {report.html / 'index.html'} or run `atlas serve`")
    if findings:
        output.message(
            f"atlas build: {len(findings)} finding(s) (annotations that do not resolve are shown so on their "
            "pages; `atlas check` says more)"
        )
    return 1 if findings else 0


def _handler():
    """The site's files; a path no file can have (a NUL byte) is answered 400, not an error on the console. Made
    when `serve` runs: http.server is imported only by the verb that needs it."""
    import http
    import http.server
    import urllib.parse

    class Handler(http.server.SimpleHTTPRequestHandler):
        def send_head(self):
            if b"\0" in urllib.parse.unquote_to_bytes(self.path):
                self.send_error(http.HTTPStatus.BAD_REQUEST, "no file has a NUL byte in its path")
                return None
            try:
                return super().send_head()
            except ValueError:  # a name the file system refuses, found before anything was sent: no such file
                self.send_error(http.HTTPStatus.NOT_FOUND, "File not found")
                return None

    return Handler


def serve(args, settings) -> int:
    from atlas.render import out_dir

    output.require(args)
    import functools
    import http.server

    html = out_dir(settings, args.out) / "html"
    if not (html / "index.html").is_file():
        raise BuildMissing(f"no built site in {html}; run `atlas build` first")
    handler = functools.partial(_handler(), directory=str(html))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    except OSError as exc:
        raise ConfigError(
            f"cannot serve on 127.0.0.1:{args.port} ({exc.strerror}); another program holds the port: "
            "pick another with --port"
        ) from None
    with server:
        output.message(f"serving {html} on http://127.0.0.1:{args.port}/ (Ctrl-C stops)")
        server.serve_forever()
    return 0
