"""Capture functions per framework: qualname -> {capture name -> fn(Call)}, reading the engine's objects
defensively (getattr with defaults). `GENERIC` holds captures every hook accepts."""


def fail(call):
    """Fault injection for tests: a capture that always raises (the probe must disable the hook, not the engine)."""
    raise RuntimeError("atlas probe fault injection: capture 'fail' raises by design")


GENERIC = {"fail": fail}
