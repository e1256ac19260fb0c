"""What the annotations say of code: a symbol's contracts (input, state, output, allocated vs committed,
invariants, cost) and claims with their verdicts per pin set and evidence lines at the pin asked, each statement
with its review (atlas.annotate.review: true, false or unenforced, and the lines that decide it); a mechanism's
steps; every claim's verdict side by side across pin sets, changes first."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from atlas.annotate import (
    Annotation,
    CheckReport,
    Claim,
    Contract,
    Resolver,
    ReviewRow,
    check,
    reviewed_statements,
)
from atlas.annotate.vocabulary import MECHANISMS
from atlas.errors import ConfigError
from atlas.query.session import Atlas, PinRef


@dataclass(frozen=True, slots=True)
class EvidenceLine:
    """One evidence item of a claim resolved at a pin: the code it points at, and whether it is as expected."""

    symbol: str
    pattern: str
    expect: str  # present | absent
    path: str
    line: int
    end_line: int
    holds: bool
    problem: str = ""  # why it does not hold, in words


@dataclass(frozen=True, slots=True)
class VerdictAt:
    pin_set: str
    verdict: str  # holds | changed | not_found | gone
    note: str


@dataclass(frozen=True, slots=True)
class ClaimView:
    """A claim of the article about the code: its verdict at every pin set of the framework, and its evidence
    resolved at the pin asked."""

    annotation: str
    id: str
    claim: str
    article: str
    verdicts: tuple[VerdictAt, ...]  # default first
    evidence: tuple[EvidenceLine, ...]

    def verdict(self, pin_set: str) -> str:
        return next((v.verdict for v in self.verdicts if v.pin_set == pin_set), "")


@dataclass(frozen=True, slots=True)
class DecidingLines:
    """Lines of one file of the pinned tree that decide a reviewed statement."""

    path: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class StatementReview:
    """One statement of an annotation (summary, a contract field or list item, a claim) with the review row that
    judges it: verdict true, false or unenforced ("" when not reviewed), the pin set it was reviewed at (the default
    pins' row stands in where the pin set asked has none), the deciding lines there, the row's note; `stale` when
    the statement was reworded since its review."""

    field: str  # summary | contract.<name>[i] | contract.<name> | claims.<claim id>
    kind: str  # summary, a contract field's name, or claims
    text: str
    verdict: str
    pin_set: str
    deciding: tuple[DecidingLines, ...]
    note: str
    stale: bool


@dataclass(frozen=True, slots=True)
class ContractView:
    """One annotation of a symbol as it reads at a pin set: where it lands there and what it says."""

    annotation: str
    pin_set: str  # the pin set it is read and resolved at
    framework: str
    mechanism: str
    role: str
    summary: str
    symbol: str
    path: str  # the symbol's file at the pin ("" when it does not resolve)
    line: int  # the anchored statement's first line, else the symbol's
    end_line: int
    contract: Contract
    claims: tuple[ClaimView, ...]
    notes: str
    file: str  # the YAML file and line it is written at
    file_line: int
    problem: str = ""  # why it does not resolve at the pin
    reviews: tuple[StatementReview, ...] = ()  # every statement with its review, in the annotation's order

    def review(self, field: str) -> StatementReview | None:
        """The review of one statement (`contract.input[0]`, `claims.<id>`, `summary`), None when it has none."""
        return next((r for r in self.reviews if r.field == field), None)


@dataclass(frozen=True, slots=True)
class Mechanism:
    """A mechanism (one of the article's sections) at one pin set: each framework's annotated steps in order."""

    slug: str
    section: int
    title: str
    pin_set: str
    steps: tuple[ContractView, ...]


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """One claim across pin sets: its verdict and whether its evidence holds at each."""

    framework: str
    annotation: str
    id: str
    claim: str
    article: str
    at: tuple[tuple[str, str, bool, tuple[EvidenceLine, ...]], ...]  # (pin set, verdict, evidence holds, evidence)

    @property
    def is_changed(self) -> bool:
        """The verdict differs between the pin sets, or evidence fails at one of them."""
        return len({verdict for _, verdict, _, _ in self.at}) > 1 or not all(ok for _, _, ok, _ in self.at)


@dataclass(frozen=True, slots=True)
class ClaimTable:
    pins: tuple[PinRef, ...]
    rows: tuple[ClaimRow, ...]  # changed first, then by annotation

    @property
    def num_changed(self) -> int:
        return sum(1 for r in self.rows if r.is_changed)


def _claim_view(
    annotation: Annotation, claim: Claim, pin_set: str, resolver: Resolver, pin_sets: list[str]
) -> ClaimView:
    at = claim.for_pin(pin_set)
    evidence = []
    for item in at.evidence:
        r = resolver.resolve_evidence(annotation.for_pin(pin_set), at, item)
        evidence.append(
            EvidenceLine(
                item.symbol,
                item.pattern,
                item.expect,
                r.path,
                r.line,
                r.end_line,
                r.finding is None,
                r.finding.message if r.finding else "",
            )
        )
    verdicts = tuple(VerdictAt(s, claim.verdict_at(s).verdict, claim.verdict_at(s).note) for s in pin_sets)
    return ClaimView(annotation.id, claim.id, claim.claim, claim.article, verdicts, tuple(evidence))


def statement_reviews(annotation: Annotation, rows: Iterable[ReviewRow], pin_set: str) -> tuple[StatementReview, ...]:
    """Each statement of the annotation as it reads at `pin_set`, with the review row of that pin set (else the
    default pins') from `rows`."""
    out = []
    for item in reviewed_statements(annotation, rows, pin_set):
        s, row = item.statement, item.row
        out.append(
            StatementReview(
                s.field,
                s.kind,
                s.text,
                row.verdict if row else "",
                row.pin_set if row else "",
                tuple(DecidingLines(d.path, d.start, d.end) for d in row.deciding) if row else (),
                row.note if row else "",
                item.is_stale,
            )
        )
    return tuple(out)


def contract_view(
    annotation: Annotation,
    pin_set: str,
    resolver: Resolver,
    pin_sets: list[str],
    reviews: Iterable[ReviewRow] = (),
) -> ContractView:
    """One annotation as it reads at `pin_set`, resolved by `resolver` (an index of that pin), its claims' verdicts
    at each of `pin_sets` (default first), each statement with its review among `reviews` (the review record's
    rows)."""
    a = annotation.for_pin(pin_set)
    r = resolver.resolve(a)
    claims = tuple(_claim_view(annotation, c, pin_set, resolver, pin_sets) for c in annotation.claims)
    return ContractView(
        a.id,
        pin_set,
        a.framework,
        a.mechanism,
        a.role,
        a.summary,
        a.symbol,
        r.path,
        r.anchor_line or r.line,
        r.anchor_end_line or r.end_line,
        a.contract,
        claims,
        a.notes,
        a.file,
        a.line,
        r.finding.message if r.finding else "",
        statement_reviews(annotation, reviews, pin_set),
    )


def contracts_of(atlas: Atlas, framework: str, pin_set: str, symbol: str) -> list[ContractView]:
    """The annotations anchored at `symbol` as they read at `pin_set`, in file order."""
    mine = [a for a in atlas.annotations() if a.framework == framework and a.for_pin(pin_set).symbol == symbol]
    if not mine:
        return []
    resolver = Resolver(atlas.index(framework, pin_set, symbols_only=True))
    return [contract_view(a, pin_set, resolver, atlas.pin_sets(framework), atlas.reviews()) for a in mine]


def contracts_at(atlas: Atlas, framework: str, pin_set: str, ids: list[str]) -> list[ContractView]:
    """The annotations `ids` as they read at `pin_set` (their symbol and anchor there, which may have moved), with
    their evidence resolved at that pin."""
    wanted = [a for a in atlas.annotations() if a.id in ids]
    if not wanted or pin_set not in atlas.manifest(framework).pins:
        return []
    resolver = Resolver(atlas.index(framework, pin_set, symbols_only=True))
    return [contract_view(a, pin_set, resolver, atlas.pin_sets(framework), atlas.reviews()) for a in wanted]


def citing(atlas: Atlas, framework: str, pin_set: str, symbol: str) -> list[tuple[str, str, str]]:
    """(annotation, claim, verdict there) of the claims of other symbols' annotations whose evidence is in
    `symbol`."""
    out = []
    for a in atlas.annotations():
        if a.framework != framework or a.for_pin(pin_set).symbol == symbol:
            continue
        for c in a.for_pin(pin_set).claims:
            if any(e.symbol == symbol for e in c.evidence):
                out.append((a.id, c.id, c.verdict))
    return out


def mechanism(atlas: Atlas, name: str, framework: str | None, pin_set: str) -> Mechanism:
    """A mechanism's annotated steps at `pin_set` (every framework that has the set, or the one named), in the
    plan -> allocate -> execute -> validate -> commit -> release order, each with its contract and claims."""
    slug = _mechanism_slug(name)
    steps: list[ContractView] = []
    for fw in atlas.frameworks(framework, pin_set):
        mine = [a for a in atlas.annotations() if a.framework == fw and a.mechanism == slug]
        if mine:
            resolver = Resolver(atlas.index(fw, pin_set, symbols_only=True))
            steps.extend(contract_view(a, pin_set, resolver, atlas.pin_sets(fw), atlas.reviews()) for a in mine)
    section, title = MECHANISMS[slug]
    return Mechanism(slug, section, title, pin_set, tuple(steps))


def _mechanism_slug(name: str) -> str:
    """The mechanism a name means: its slug, section number or a word of its title."""
    lowered = name.strip().lower()
    for slug, (section, title) in MECHANISMS.items():
        if lowered in (slug, str(section), title.lower()):
            return slug
    near = [slug for slug, (_, title) in MECHANISMS.items() if lowered in slug or lowered in title.lower()]
    if len(near) == 1:
        return near[0]
    choices = ", ".join(f"{slug} ({section})" for slug, (section, _) in MECHANISMS.items())
    raise ConfigError(f"no mechanism {name!r}; choose one of: {choices}")


def claims_across(atlas: Atlas, framework: str | None, pin_sets: list[str]) -> ClaimTable:
    """Every claim's verdict and evidence at each pin set, side by side; the claims that change between them (or
    whose evidence fails at one) first."""
    annotations = atlas.annotations()
    frameworks = sorted({a.framework for a in annotations if framework in (None, a.framework)})
    reports = [
        checked(atlas, fw, pin_set) for pin_set in pin_sets for fw in frameworks if pin_set in atlas.manifest(fw).pins
    ]
    return claim_table(annotations, reports)


def checked(atlas: Atlas, framework: str, pin_set: str) -> CheckReport:
    """`atlas check`'s report of one framework at one pin set, made once per Atlas (a server asked again answers
    from memory)."""
    key = f"check {framework} {pin_set}"
    report = atlas.cached(key)
    if report is None:
        report = atlas.keep(
            key, check(atlas.annotations(), atlas.index(framework, pin_set, symbols_only=True), pin_set)
        )
    return report


def claim_table(annotations: list[Annotation], reports: list[CheckReport]) -> ClaimTable:
    """The claims of `atlas check`'s reports (one per framework and pin set) side by side, changes first."""
    cells: dict[tuple[str, str, str], list] = {}
    texts: dict[tuple[str, str, str], Claim] = {}
    for report in reports:
        lines: dict[tuple[str, str], list[EvidenceLine]] = {}
        for e in report.evidence:
            lines.setdefault((e.annotation, e.claim), []).append(
                EvidenceLine(
                    e.evidence.symbol,
                    e.evidence.pattern,
                    e.evidence.expect,
                    e.path,
                    e.line,
                    e.end_line,
                    e.finding is None,
                    e.finding.message if e.finding else "",
                )
            )
        for a in annotations:
            if a.framework != report.pin.framework:
                continue
            for c in a.claims:
                key = (a.framework, a.id, c.id)
                texts[key] = c
                items = tuple(lines.get((a.id, c.id), ()))
                verdict = c.verdict_at(report.pin_set).verdict
                cells.setdefault(key, []).append((report.pin_set, verdict, all(e.holds for e in items), items))
    rows = [
        ClaimRow(fw, a, c, texts[(fw, a, c)].claim, texts[(fw, a, c)].article, tuple(at))
        for (fw, a, c), at in cells.items()
    ]
    rows.sort(key=lambda r: (not r.is_changed, r.framework, r.annotation, r.id))
    return ClaimTable(tuple(PinRef.of(r.pin, r.pin_set) for r in reports), tuple(rows))
