"""A build's processes, doing what atlas.graph.schedule shares out: forked while the parent is still small (a child
that writes to its parent's pages copies them), each parses its chunks of other trees first and leaves them in the
build folder for their owner (told through the owner's inbox pipe), then parses and resolves its own tree. Reports
and errors come back to the parent, which stops every process when one fails. Without fork, or with one core, the
same work runs here, a tree at a time."""

from __future__ import annotations

import marshal
import multiprocessing
import os
import pickle
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

from atlas import env, lifetime
from atlas.errors import BuildFailed
from atlas.graph import background
from atlas.graph.packs import Packs
from atlas.graph.parsing import PyFile, decode, encode, parse_packed, unpack_file
from atlas.graph.schedule import Share, Tree, assign
from atlas.parse.kernels.layer import cpp_file


@dataclass(frozen=True, slots=True)
class TreeWork:
    """One tree to build: its checkout, every analysed .py file (in file order) and those the cache lacks, its C++
    files, and `finish(facts, kernel_facts, cpp, num_parsed, timings) -> report`, which resolves and stores it
    (`cpp()` gives the C++ files' results, atlas.parse.kernels.layer.cpp_file, in order)."""

    root: Path
    files: list[PyFile]
    parse: list[PyFile]
    cpp: list[str]
    targets: dict[str, str]
    cache: Packs
    component: Callable[[str], str]
    finish: Callable


def tree_costs(work: TreeWork) -> Tree:
    size = {f.path: (work.root / f.path).stat().st_size for f in work.files}
    return Tree(
        tuple(size[f.path] for f in work.parse),
        tuple((work.root / p).stat().st_size for p in work.cpp),
        sum(size.values()) - sum(size[f.path] for f in work.parse),
    )


def run(works: list[TreeWork], cores: int, scratch: Path, progress=None) -> list:
    """Build every tree; their reports in order."""
    if not works:
        return []
    if env.no_fork() or "fork" not in multiprocessing.get_all_start_methods() or cores == 1:
        return [
            _owner(w, Share(i, [], list(range(len(w.parse))), list(range(len(w.cpp)))), None, 0, 0, None, 0)
            for i, w in enumerate(works)
        ]
    shares = assign([tree_costs(w) for w in works], cores)
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        return _run_forked(works, shares, scratch, progress)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _died(proc) -> str:
    """What to say when a build process ended without its result (killed, or out of memory)."""
    proc.join(5)
    code = proc.exitcode
    how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
    hint = " (SIGKILL: most often the kernel, out of memory)" if code == -9 else ""
    return (
        f"a graph build process {how}{hint}; nothing was stored: run the command again, with ATLAS_NO_FORK=1 to "
        "build in one process"
    )


def _run_forked(works: list[TreeWork], shares: list[Share], scratch: Path, progress) -> list:
    ctx = multiprocessing.get_context("fork")
    inboxes = [ctx.Pipe(duplex=False) for _ in works]  # (reader, writer) per owner
    counts = ctx.RawArray("q", len(shares))  # .py files parsed, per process
    procs, results = [], {}
    for p, share in enumerate(shares):
        receive, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(
            target=_child, args=(p, share, works, shares, inboxes, counts, scratch, send, os.getpid()), daemon=True
        )
        with lifetime.forking():
            proc.start()
        send.close()
        procs.append(proc)
        results[receive] = p
    for reader, writer in inboxes:
        reader.close()
        writer.close()
    reports: dict[int, object] = {}
    total = sum(len(w.parse) for w in works)
    try:
        while results:
            for conn in wait(list(results), timeout=0.25):
                p = results.pop(conn)
                try:
                    ok, value = conn.recv()
                except EOFError:
                    raise BuildFailed(_died(procs[p])) from None
                if not ok:
                    raise value
                if shares[p].owner >= 0:
                    reports[shares[p].owner] = value
            if progress:
                done = sum(counts)
                progress("parse" if done < total else "resolve", 0.9 * done / total if total else 0.9)
    finally:
        for proc in procs:
            if proc.is_alive() and results:
                proc.kill()
            proc.join()
    return [reports[i] for i in range(len(works))]


def _child(
    p: int, share: Share, works: list[TreeWork], shares: list[Share], inboxes, counts, scratch: Path, send, parent: int
) -> None:
    lifetime.tie_to_parent(parent)
    background.mark_child()
    try:
        for chunk in share.foreign:
            work = works[chunk.tree]
            if chunk.is_cpp:
                done = [(i, cpp_file(work.root, work.cpp[i], work.targets)) for i in chunk.files]
                data = pickle.dumps(done, protocol=pickle.HIGHEST_PROTOCOL)
            else:
                done = []
                for i in chunk.files:
                    f = work.parse[i]
                    done.append((f.key, encode(parse_packed(work.root, f))))
                    counts[p] += 1
                data = marshal.dumps(done)
            path = scratch / f"{chunk.tree}-{'cpp' if chunk.is_cpp else 'py'}-{chunk.files[0]}.share"
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
            inboxes[chunk.tree][1].send((chunk.is_cpp, str(path)))
        report = None
        if share.owner >= 0:
            expected = [c for s in shares for c in s.foreign if c.tree == share.owner]
            report = _owner(
                works[share.owner],
                share,
                inboxes[share.owner][0],
                sum(not c.is_cpp for c in expected),
                sum(c.is_cpp for c in expected),
                counts,
                p,
            )
        send.send((True, report))
    except BaseException as exc:  # noqa: BLE001 - carried to the parent, raised there
        send.send((False, exc))
    finally:
        send.close()


class _Inbox:
    """The shares other processes made of a tree, read as they are needed: Python ones before resolution, C++ ones
    after (a message for the other kind is kept for later)."""

    def __init__(self, conn, num_py: int, num_cpp: int):
        self.conn, self.waiting, self.kept = conn, {False: num_py, True: num_cpp}, {False: [], True: []}

    def take(self, is_cpp: bool) -> list[bytes]:
        out = []
        while self.kept[is_cpp] or self.waiting[is_cpp]:
            if not self.kept[is_cpp]:
                kind, path = self.conn.recv()
                self.kept[kind].append(path)
                self.waiting[kind] -= 1
                continue
            path = Path(self.kept[is_cpp].pop())
            out.append(path.read_bytes())
            path.unlink(missing_ok=True)
        return out


def _owner(work: TreeWork, share: Share, conn, num_py: int, num_cpp: int, counts, p: int):
    """Parse this process's part of its own tree, take the parts parsed elsewhere and the cached facts, resolve,
    then the C++ files, and store."""
    started = time.perf_counter()
    inbox = _Inbox(conn, num_py, num_cpp)
    fresh: dict[str, bytes] = {}
    facts: dict[str, tuple] = {}

    def parse(f: PyFile) -> None:
        packed = parse_packed(work.root, f)
        fresh[f.key] = encode(packed)
        facts[f.key] = unpack_file(packed, work.component)

    for i in share.own_py:
        parse(work.parse[i])
        if counts is not None:
            counts[p] += 1
    timings = {"parse": time.perf_counter() - started}
    t = time.perf_counter()
    for data in inbox.take(False):
        for key, entry in marshal.loads(data):
            fresh[key] = entry
            facts[key] = decode(entry, work.component)
    for key, entry in work.cache.read([f.key for f in work.files if f.key not in facts]).items():
        try:
            facts[key] = decode(entry, work.component)
        except ValueError:  # a damaged entry: parsed again below
            pass
    for f in work.files:
        if f.key not in facts:
            parse(f)
    work.cache.write(fresh)
    timings["decode"] = time.perf_counter() - t
    modules = [facts[f.key] for f in work.files]

    def cpp() -> list:
        results = {i: cpp_file(work.root, work.cpp[i], work.targets) for i in share.own_cpp}
        for data in inbox.take(True):
            results.update(pickle.loads(data))
        return [results[i] for i in range(len(work.cpp))]

    return work.finish([m for m, _ in modules], [k for _, k in modules if k is not None], cpp, len(fresh), timings)
