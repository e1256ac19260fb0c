"""SGLang's way in: the `sglang.srt.plugins` entry point (SGLang's own general-plugin group, loaded by the Engine
and again inside each scheduler subprocess). Chosen over a sitecustomize because SGLang calls it in exactly the
processes that matter and it shadows nothing; it installs the probe when ATLAS_PROBES names a spec file, and
records call edges (probes.edges) when the spec or ATLAS_EDGES asks; otherwise it does nothing."""


def register() -> None:
    from probes import edges
    from probes.runtime import install_from_env

    edges.install_from_env("sglang", install_from_env("sglang"))
